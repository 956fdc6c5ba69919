/** @jsxRuntime automatic @jsxImportSource preact */
// "Your webhook endpoint is failing", sent once per failing spell (mail/endpoint-alerts.ts).
import { formatDateTime, formatNumber, type Lang } from "../../web/i18n.ts";
import { MAIL_TEXTS } from "../i18n.ts";
import type { RenderedMail } from "../message.ts";
import { FactRows, MailButton, plainText, renderMailHtml } from "./layout.tsx";

export interface FailingEndpointFacts {
  url: string;
  failingSince: Date;
  waiting: number;
  /** The endpoint's page in the portal, when known. */
  portalUrl: string | null;
}

export function endpointFailingMail(lang: Lang, facts: FailingEndpointFacts): RenderedMail {
  const m = MAIL_TEXTS[lang];
  const since = formatDateTime(facts.failingSince, lang);
  const rows: Array<[string, string]> = [
    [m.failingWhat, facts.url],
    [m.failingSince, since],
    [m.failingWaiting, formatNumber(facts.waiting, lang)],
  ];
  const intro = m.failingIntro(facts.url, since);
  const html = renderMailHtml({
    lang,
    title: m.failingTitle,
    sender: "Paylink",
    footer: m.failingFooter,
    children: (
      <>
        <p>{intro}</p>
        <FactRows rows={rows} />
        {facts.portalUrl ? <MailButton href={facts.portalUrl}>{m.openInPortal}</MailButton> : null}
      </>
    ),
  });
  const text = plainText([
    m.failingTitle,
    intro,
    rows,
    facts.portalUrl ? `${m.openInPortal}: ${facts.portalUrl}` : null,
    `-- \n${m.failingFooter}`,
  ]);
  return { subject: m.failingSubject(facts.url), html, text };
}
