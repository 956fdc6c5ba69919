/** @jsxRuntime automatic @jsxImportSource preact */
// The shopper's receipt: who was paid, for what, how much, with which card, and the references
// to quote if something is wrong. An authorisation the shop captures later is worded as one: the
// shopper has not paid yet, and a mail saying so would be untrue if the shop never captures.
import type { Item } from "../../domain/links/types.ts";
import { cardDisplayName } from "../../payments/cards.ts";
import { formatDateTime, formatMoney, type Lang } from "../../web/i18n.ts";
import { MAIL_TEXTS } from "../i18n.ts";
import type { RenderedMail } from "../message.ts";
import { FactRows, plainText, renderMailHtml } from "./layout.tsx";

export interface ReceiptFacts {
  merchantName: string;
  items: Item[];
  amount: number;
  currency: string;
  cardBrand: string | null;
  cardLast4: string | null;
  checkoutReference: string;
  /** The shop's order (a session) or the link's reference. */
  orderReference: string;
  payfacReference: string | null;
  authCode: string | null;
  paidAt: Date;
  /** Authorised, not captured (a session with manual capture): worded as a reservation, not a payment. */
  authorisedOnly: boolean;
}

export function receiptMail(lang: Lang, facts: ReceiptFacts): RenderedMail {
  const m = MAIL_TEXTS[lang];
  const money = (amount: number) => formatMoney(amount, facts.currency, lang);
  const a = m.authorisation;
  const words = facts.authorisedOnly
    ? {
        subject: a.subject(facts.merchantName),
        title: a.title,
        intro: a.intro(facts.merchantName, money(facts.amount)),
        footer: a.footer(facts.merchantName),
        when: a.authorisedAt,
      }
    : {
        subject: m.receiptSubject(facts.merchantName),
        title: m.receiptTitle,
        intro: m.receiptIntro(facts.merchantName),
        footer: m.receiptFooter(facts.merchantName),
        when: m.paidAt,
      };
  const items: Array<[string, string]> = facts.items.map((item) => [
    item.quantity === 1 ? item.name : `${item.quantity} × ${item.name}`,
    money(item.amount),
  ]);
  const card = cardDisplayName(facts.cardBrand, facts.cardLast4);
  const details: Array<[string, string]> = [
    [m.total, money(facts.amount)],
    ...(card ? [[m.card, card] as [string, string]] : []),
    [words.when, formatDateTime(facts.paidAt, lang)],
    [m.orderReference, facts.orderReference],
    [m.reference, facts.checkoutReference],
    ...(facts.payfacReference ? [[m.processorReference, facts.payfacReference] as [string, string]] : []),
    ...(facts.authCode ? [[m.authCode, facts.authCode] as [string, string]] : []),
  ];
  const html = renderMailHtml({
    lang,
    title: words.title,
    sender: facts.merchantName,
    footer: words.footer,
    children: (
      <>
        <p>{words.intro}</p>
        {items.length > 0 ? (
          <>
            <h2 style="font-size:16px;margin:16px 0 0">{m.itemsHeading}</h2>
            <FactRows rows={items} />
          </>
        ) : null}
        <FactRows rows={details} />
      </>
    ),
  });
  const text = plainText([
    words.title,
    words.intro,
    items.length > 0 ? `${m.itemsHeading}:\n${items.map(([name, amount]) => `  ${name}: ${amount}`).join("\n")}` : null,
    details,
    `-- \n${words.footer}`,
  ]);
  return { subject: words.subject, html, text };
}
