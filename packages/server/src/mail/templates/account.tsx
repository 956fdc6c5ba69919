/** @jsxRuntime automatic @jsxImportSource preact */
// Mail about a portal account that carries a one-time link: a password reset and an invitation.
// The link is never rendered here: the bodies hold ONE_TIME_LINK_PLACEHOLDER, and the worker puts
// the sealed link in at send time (mail/outbox.ts).
import type { Lang } from "../../web/i18n.ts";
import { MAIL_TEXTS } from "../i18n.ts";
import { ONE_TIME_LINK_PLACEHOLDER, type RenderedMail } from "../message.ts";
import { MailButton, plainText, renderMailHtml } from "./layout.tsx";

export function passwordResetMail(lang: Lang, facts: { email: string; validHours: number }): RenderedMail {
  const m = MAIL_TEXTS[lang];
  const intro = m.resetIntro(facts.email);
  const html = renderMailHtml({
    lang,
    title: m.resetTitle,
    sender: "Paylink",
    footer: m.accountFooter,
    children: (
      <>
        <p>{intro}</p>
        <MailButton href={ONE_TIME_LINK_PLACEHOLDER}>{m.resetButton}</MailButton>
        <p>{m.resetValid(facts.validHours)}</p>
        <p>{m.resetIgnore}</p>
      </>
    ),
  });
  const text = plainText([
    m.resetTitle,
    intro,
    ONE_TIME_LINK_PLACEHOLDER,
    m.resetValid(facts.validHours),
    m.resetIgnore,
    `-- \n${m.accountFooter}`,
  ]);
  return { subject: m.resetSubject, html, text };
}

export function invitationMail(lang: Lang, facts: { merchantName: string; inviter: string; validHours: number }): RenderedMail {
  const m = MAIL_TEXTS[lang];
  const intro = m.inviteIntro(facts.inviter, facts.merchantName);
  const html = renderMailHtml({
    lang,
    title: m.inviteTitle(facts.merchantName),
    sender: "Paylink",
    footer: m.accountFooter,
    children: (
      <>
        <p>{intro}</p>
        <MailButton href={ONE_TIME_LINK_PLACEHOLDER}>{m.inviteButton}</MailButton>
        <p>{m.inviteValid(facts.validHours)}</p>
        <p>{m.inviteIgnore}</p>
      </>
    ),
  });
  const text = plainText([
    m.inviteTitle(facts.merchantName),
    intro,
    ONE_TIME_LINK_PLACEHOLDER,
    m.inviteValid(facts.validHours),
    m.inviteIgnore,
    `-- \n${m.accountFooter}`,
  ]);
  return { subject: m.inviteSubject(facts.merchantName), html, text };
}
