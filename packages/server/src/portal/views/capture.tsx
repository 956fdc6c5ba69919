/** @jsxRuntime automatic @jsxImportSource preact */
// A manual-capture payment's captures, and the forms to capture part or all of what is authorised
// and to cancel it (a reversal: the rest released, what is captured refunded), shown while the
// authorisation is open.
import type { CaptureRecord } from "../../db/captures-repository.ts";
import type { AuthorisationState } from "../../domain/payments/capture.ts";
import { formatDateTime, formatMoney, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { Csrf } from "./layout.tsx";
import { TableHead, TableWrap } from "./table.tsx";

export function Captures(props: {
  lang: Lang;
  csrf: string;
  action: string;
  captures: CaptureRecord[];
  state: AuthorisationState;
  authorised: number;
  captured: number;
  /** What can still be captured (authorised minus captured and held by captures in flight). */
  left: number;
  currency: string;
  problem?: string | undefined;
  /** Capture and cancel are for roles that may (docs/portal.md#users-and-roles). */
  canManage: boolean;
}) {
  const m = PORTAL_MESSAGES[props.lang].payments;
  const money = (amount: number) => formatMoney(amount, props.currency, props.lang);
  const captures = props.captures.filter((c) => c.kind === "capture");
  return (
    <section class="card" aria-labelledby="captures-title" data-captures={props.state}>
      <h2 id="captures-title">{m.captureTitle}</h2>
      <p>
        {m.authorisationStates[props.state] ?? props.state}. {m.captured(money(props.captured), money(props.authorised))}
      </p>
      {captures.length === 0 ? (
        <p class="muted">{m.noCaptures}</p>
      ) : (
        <TableWrap label={m.captureTitle}>
          <table>
            <TableHead
              columns={[
                PORTAL_MESSAGES[props.lang].payment.date,
                m.payfacReference,
                { num: PORTAL_MESSAGES[props.lang].payment.amount },
                PORTAL_MESSAGES[props.lang].payment.result,
              ]}
            />
            <tbody>
              {captures.map((c) => (
                <tr key={c.payfacReference}>
                  <td>{formatDateTime(c.createdAt, props.lang)}</td>
                  <td class="mono">{c.payfacReference}</td>
                  <td class="num">{money(c.amount)}</td>
                  <td>
                    <span class={c.state === "approved" ? "pill ok" : c.state === "declined" ? "pill bad" : "pill"}>
                      {m.captureStates[c.state] ?? c.state}
                    </span>
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
      {props.state === "open" && props.canManage ? (
        <div class="row">
          {props.left > 0 ? (
            <form method="post" action={`${props.action}/capture`} class="row">
              <Csrf token={props.csrf} />
              <div class="field">
                <label for="capture-amount">{m.captureAmount(money(props.left))}</label>
                <input id="capture-amount" name="amount" inputmode="decimal" required />
              </div>
              <div class="field">
                <button type="submit">{m.captureButton}</button>
              </div>
            </form>
          ) : null}
          {/* Cancelling asks first, on a page of its own. */}
          <div class="field">
            <span class="hint">{m.cancelHint}</span>
            <a class="button danger" href={`${props.action}/reverse`}>
              {m.cancelButton}
            </a>
          </div>
        </div>
      ) : null}
    </section>
  );
}
