/** @jsxRuntime automatic @jsxImportSource preact */
// The saved cards table of the saved-cards page and of a customer's page: the card by name
// ("Visa •••• 1111"), its expiry, its status and its shopper; at 375 px each row is a card.
import type { SavedCardSummary } from "../../db/customers-repository.ts";
import { formatDateTime, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { cardName } from "./card.tsx";
import { TableHead, TableWrap } from "./table.tsx";

export function SavedCardsTable(props: { cards: SavedCardSummary[]; lang: Lang; customerHref: (card: SavedCardSummary) => string | null }) {
  const m = PORTAL_MESSAGES[props.lang];
  const s = m.savedCards;
  if (props.cards.length === 0) return <p class="muted">{s.none}</p>;
  return (
    <TableWrap label={s.title}>
      <table data-saved-cards class="cards">
        <TableHead columns={[s.card, s.expiry, s.status, s.customer, s.savedAt]} />
        <tbody>
          {props.cards.map((card) => {
            const customer = props.customerHref(card);
            return (
              <tr key={card.id} data-card={card.id}>
                <td data-label={s.card}>
                  <a href={`/portal/saved-cards/${card.id}`}>{cardName(card.brand, card.masked) ?? m.none}</a>
                </td>
                <td data-label={s.expiry}>{card.expiry || m.none}</td>
                <td data-label={s.status}>
                  <span class={`pill ${card.disabled ? "bad" : "ok"}`}>{card.disabled ? s.disabled : s.active}</span>
                </td>
                <td data-label={s.customer}>
                  {customer ? <a href={customer}>{card.email ?? card.reference}</a> : m.none}
                  {card.name ? <span class="hint">{card.name}</span> : null}
                </td>
                <td data-label={s.savedAt}>{formatDateTime(card.savedAt, props.lang)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}
