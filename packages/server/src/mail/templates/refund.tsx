/** @jsxRuntime automatic @jsxImportSource preact */
// The shopper's refund notice: how much came back, for which payment.
import { cardDisplayName } from "../../payments/cards.ts";
import { formatMoney, type Lang } from "../../web/i18n.ts";
import { MAIL_TEXTS } from "../i18n.ts";
import type { RenderedMail } from "../message.ts";
import { FactRows, plainText, renderMailHtml } from "./layout.tsx";

export interface RefundFacts {
  merchantName: string;
  refunded: number;
  originalAmount: number;
  currency: string;
  cardBrand: string | null;
  cardLast4: string | null;
  checkoutReference: string;
  orderReference: string;
  refundReference: string;
}

export function refundMail(lang: Lang, facts: RefundFacts): RenderedMail {
  const m = MAIL_TEXTS[lang];
  const refunded = formatMoney(facts.refunded, facts.currency, lang);
  const card = cardDisplayName(facts.cardBrand, facts.cardLast4);
  const rows: Array<[string, string]> = [
    [m.refunded, refunded],
    [m.originalAmount, formatMoney(facts.originalAmount, facts.currency, lang)],
    ...(card ? [[m.card, card] as [string, string]] : []),
    [m.orderReference, facts.orderReference],
    [m.reference, facts.checkoutReference],
    [m.processorReference, facts.refundReference],
  ];
  const intro = m.refundIntro(facts.merchantName, refunded);
  const html = renderMailHtml({
    lang,
    title: m.refundTitle,
    sender: facts.merchantName,
    footer: m.refundFooter(facts.merchantName),
    children: (
      <>
        <p>{intro}</p>
        <FactRows rows={rows} />
      </>
    ),
  });
  const text = plainText([m.refundTitle, intro, rows, `-- \n${m.refundFooter(facts.merchantName)}`]);
  return { subject: m.refundSubject(facts.merchantName), html, text };
}
