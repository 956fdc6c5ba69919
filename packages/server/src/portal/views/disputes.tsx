/** @jsxRuntime automatic @jsxImportSource preact */
// A payment's chargebacks and disputes as the processor reported them (docs/portal.md#payments):
// where each stands, what is disputed and why. Paylink only shows them; the merchant answers a
// dispute in the processor's own dashboard, which is where the evidence goes.
import type { Dispute } from "../../db/disputes-repository.ts";
import { formatDateTime, formatMoney, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { TableHead, TableWrap } from "./table.tsx";

const TONE: Record<string, string> = { Open: "pill warn", Won: "pill ok", Lost: "pill bad" };

export function Disputes(props: { lang: Lang; disputes: Dispute[] }) {
  const { lang } = props;
  const m = PORTAL_MESSAGES[lang].payments;
  const p = PORTAL_MESSAGES[lang].payment;
  return (
    <section class="card" aria-labelledby="disputes-title" data-disputes>
      <h2 id="disputes-title">{m.disputes}</h2>
      <p class="muted">{m.disputesIntro}</p>
      <TableWrap label={m.disputes}>
        <table class="cards">
          <TableHead columns={[m.disputeOpened, m.disputeReference, { num: p.amount }, p.result]} />
          <tbody>
            {props.disputes.map((d) => (
              <tr key={d.disputeReference} data-dispute={d.disputeReference}>
                <td data-label={m.disputeOpened}>
                  <span>{formatDateTime(d.openedAt, lang)}</span>
                </td>
                <td data-label={m.disputeReference}>
                  <span class="mono">{d.disputeReference}</span>
                  {d.reason ? <span class="hint">{d.reason}</span> : null}
                </td>
                <td class="num" data-label={p.amount}>
                  <span>
                    {d.amount !== null && d.currency !== null ? formatMoney(d.amount, d.currency, lang) : PORTAL_MESSAGES[lang].none}
                  </span>
                </td>
                <td data-label={p.result}>
                  <span class={TONE[d.status] ?? "pill"}>{m.disputeStates[d.status] ?? d.status}</span>
                  <span class="hint">{`${d.processorEvent} · ${formatDateTime(d.updatedAt, lang)}`}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}
