/** @jsxRuntime automatic @jsxImportSource preact */
// The payments table of the overview and of the payments page: date, type (link sale or saved
// card), reference, amount, card, result (refunds and disputes told apart, domain/payments/shown-state.ts).
import type { PaymentRow } from "../../db/payments-read-repository.ts";
import { type ShownAuthorisation, shownState } from "../../domain/payments/shown-state.ts";
import { formatDateTime, formatMoney, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import type { PaymentsFacts } from "../payments-facts.ts";
import { cardName } from "./card.tsx";
import { TableHead, TableWrap } from "./table.tsx";

export function PaymentsTable(props: { payments: PaymentRow[]; lang: Lang; facts: PaymentsFacts }) {
  const m = PORTAL_MESSAGES[props.lang];
  return (
    <TableWrap label={m.payments.title}>
      <table data-payments class="cards">
        <TableHead
          columns={[m.payment.date, m.payment.type, m.payment.reference, { num: m.payment.amount }, m.payment.card, m.payment.result]}
        />
        <tbody>
          {props.payments.map((p) => (
            <tr key={p.checkoutReference} data-source={p.source}>
              <td data-label={m.payment.date}>
                <a href={`/portal/payments/${p.checkoutReference}`}>{formatDateTime(p.createdAt, props.lang)}</a>
              </td>
              <td data-label={m.payment.type}>{m.payment.sources[p.source]}</td>
              <td data-label={m.payment.reference}>
                <PaymentReference payment={p} />
              </td>
              <td class="num" data-label={m.payment.amount}>
                {formatMoney(p.amount, p.currency, props.lang)}
              </td>
              <td class="mono masked-card" data-label={m.payment.card}>
                {cardName(p.cardBrand, p.cardMasked) ?? m.none}
              </td>
              <td data-label={m.payment.result}>
                <StatePill
                  state={p.state}
                  lang={props.lang}
                  amount={p.amount}
                  refunded={props.facts.refunded.get(p.payfacReference ?? "")}
                  disputed={props.facts.disputed.has(p.payfacReference ?? "")}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** A link sale's link (with its description), or a token payment's own reference from the merchant. */
export function PaymentReference(props: { payment: PaymentRow }) {
  const p = props.payment;
  if (p.linkReference === null) return <span class="mono">{p.merchantReference}</span>;
  return (
    <>
      <a href={`/portal/links/${p.linkReference}`} class="mono">
        {p.linkReference}
      </a>
      {p.linkDescription ? <span class="hint">{p.linkDescription}</span> : null}
    </>
  );
}

export function StatePill(props: {
  state: string;
  lang: Lang;
  amount?: number;
  refunded?: number | undefined;
  authorisation?: ShownAuthorisation | undefined;
  disputed?: boolean | undefined;
}) {
  const state = shownState(props.state, props.amount ?? 0, props.refunded ?? 0, props.authorisation, props.disputed);
  const tone = ["approved", "partlyRefunded", "partlyCaptured"].includes(state)
    ? "ok"
    : state === "declined" || state === "failed"
      ? "bad"
      : state === "authorisedNotCaptured" || state === "disputed"
        ? "warn"
        : "";
  return <span class={`pill ${tone}`}>{PORTAL_MESSAGES[props.lang].payment.states[state] ?? state}</span>;
}
