/** @jsxRuntime automatic @jsxImportSource preact */
// A payment's refunds and reversals, and the forms to refund part or all of it and to reverse the
// rest (only for an approved payment with something left to refund).
import type { RefundRecord } from "../../db/refunds-repository.ts";
import { REFUND_REASONS } from "../../domain/payments/rules.ts";
import { formatDateTime, formatMoney, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { TableHead, TableWrap } from "./table.tsx";

export function Refunds(props: {
  lang: Lang;
  action: string;
  refunds: RefundRecord[];
  /** What is left to refund (amount minus refunded and pending), or null when nothing can be. */
  left: number | null;
  currency: string;
  leftText: string;
  problem?: string | undefined;
  /** What this person's role lets them do here (docs/portal.md#users-and-roles). */
  canRefund: boolean;
  canReverse: boolean;
}) {
  const m = PORTAL_MESSAGES[props.lang].payments;
  return (
    <section class="card" aria-labelledby="refunds-title">
      <h2 id="refunds-title">{m.refunds}</h2>
      {props.refunds.length === 0 ? (
        <p class="muted">{m.noRefunds}</p>
      ) : (
        <TableWrap label={m.refundsTable}>
          <table data-refunds class="cards">
            <TableHead
              columns={[
                PORTAL_MESSAGES[props.lang].payment.date,
                m.refundTitle,
                { num: PORTAL_MESSAGES[props.lang].payment.amount },
                PORTAL_MESSAGES[props.lang].payment.result,
              ]}
            />
            <tbody>
              {props.refunds.map((r) => (
                <tr key={r.payfacReference}>
                  <td data-label={PORTAL_MESSAGES[props.lang].payment.date}>
                    <span>{formatDateTime(r.createdAt, props.lang)}</span>
                  </td>
                  <td data-label={m.refundTitle}>
                    <span>{m.kinds[r.kind]}</span> <span class="mono hint">{r.payfacReference}</span>
                    {r.refundReason ? <span class="hint">{m.refundReasons[r.refundReason] ?? r.refundReason}</span> : null}
                  </td>
                  <td class="num" data-label={PORTAL_MESSAGES[props.lang].payment.amount}>
                    <span>{formatMoney(r.amount, r.currency, props.lang)}</span>
                  </td>
                  <td data-label={PORTAL_MESSAGES[props.lang].payment.result}>
                    <span class={r.state === "succeeded" ? "pill ok" : r.state === "failed" ? "pill bad" : "pill"}>
                      {m.refundStates[r.state] ?? r.state}
                    </span>
                    {r.failureReason ? <span class="hint">{r.failureReason}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {props.problem ? (
        <div class="alert" role="alert">
          {props.problem}
        </div>
      ) : null}
      {props.left !== null && props.left > 0 && (props.canRefund || props.canReverse) ? (
        <div class="row">
          {/* Both ask first: the refund form leads to its question (a GET), which posts it. */}
          {props.canRefund ? (
            <form method="get" action={`${props.action}/refund`} class="row">
              <div class="field">
                <label for="refund-amount">{m.refundAmount(props.leftText)}</label>
                <input id="refund-amount" name="amount" inputmode="decimal" required />
              </div>
              <div class="field">
                <label for="refund-reason">{m.refundReason}</label>
                <select id="refund-reason" name="refundReason">
                  {REFUND_REASONS.map((reason) => (
                    <option key={reason} value={reason}>
                      {m.refundReasons[reason] ?? reason}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <button type="submit">{m.refundButton}</button>
              </div>
            </form>
          ) : null}
          {props.canReverse ? (
            <div class="field">
              <span class="hint">{m.reverseHint}</span>
              <a class="button danger" href={`${props.action}/reverse`}>
                {m.reverseButton}
              </a>
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
