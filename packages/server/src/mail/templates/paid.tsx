/** @jsxRuntime automatic @jsxImportSource preact */
// The merchant's "you got paid", for the portal users who asked for it.
import { cardDisplayName } from "../../payments/cards.ts";
import { formatMoney, type Lang } from "../../web/i18n.ts";
import { MAIL_TEXTS } from "../i18n.ts";
import type { RenderedMail } from "../message.ts";
import { FactRows, MailButton, plainText, renderMailHtml } from "./layout.tsx";

export interface PaidFacts {
  amount: number;
  currency: string;
  cardBrand: string | null;
  cardLast4: string | null;
  orderReference: string;
  checkoutReference: string;
  shopperEmail: string | null;
  /** The payment's page in the portal, when known. */
  portalUrl: string | null;
}

export function paidMail(lang: Lang, facts: PaidFacts): RenderedMail {
  const m = MAIL_TEXTS[lang];
  const amount = formatMoney(facts.amount, facts.currency, lang);
  const card = cardDisplayName(facts.cardBrand, facts.cardLast4);
  const rows: Array<[string, string]> = [
    [m.total, amount],
    ...(card ? [[m.card, card] as [string, string]] : []),
    [m.orderReference, facts.orderReference],
    [m.reference, facts.checkoutReference],
    ...(facts.shopperEmail ? [[m.shopperEmail, facts.shopperEmail] as [string, string]] : []),
  ];
  const html = renderMailHtml({
    lang,
    title: m.paidTitle,
    sender: "Paylink",
    footer: m.paidFooter,
    children: (
      <>
        <p>{m.paidIntro(amount)}</p>
        <FactRows rows={rows} />
        {facts.portalUrl ? <MailButton href={facts.portalUrl}>{m.openInPortal}</MailButton> : null}
      </>
    ),
  });
  const text = plainText([
    m.paidTitle,
    m.paidIntro(amount),
    rows,
    facts.portalUrl ? `${m.openInPortal}: ${facts.portalUrl}` : null,
    `-- \n${m.paidFooter}`,
  ]);
  return { subject: m.paidSubject(amount), html, text };
}
