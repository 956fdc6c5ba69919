/** @jsxRuntime automatic @jsxImportSource preact */
// The page's left column: what is being paid for (the cart and its total), or, on a link that
// saves a card, what saving it means.
import type { LinkTerms } from "../../domain/links/types.ts";
import { formatMoney, formatNumber, type Lang } from "../../web/i18n.ts";
import type { Messages } from "../i18n.ts";

interface OrderSummaryProps {
  m: Messages;
  lang: Lang;
  terms: LinkTerms;
  /** The name the shopper knows the seller by (the page's header name). */
  merchant: string;
}

export function OrderSummary({ m, lang, terms, merchant }: OrderSummaryProps) {
  const money = (amount: number) => formatMoney(amount, terms.currency, lang);
  if (terms.type === "TokenizeByLink") {
    return (
      <section class="card summary" aria-labelledby="summary-title">
        <h1 id="summary-title">{m.saveCardTitle}</h1>
        <p>{m.saveCardExplain(merchant)}</p>
        <p class="total">
          <span>{m.amountDueNow}</span>
          <span>{money(0)}</span>
        </p>
      </section>
    );
  }
  return (
    <section class="card summary" aria-labelledby="summary-title">
      <h1 id="summary-title">{m.orderSummary}</h1>
      {terms.items.length > 0 ? (
        <table class="items">
          <thead class="sr-only">
            <tr>
              <th scope="col">{m.itemHeader}</th>
              <th scope="col">{m.amountHeader}</th>
            </tr>
          </thead>
          <tbody>
            {terms.items.map((item) => {
              const discount = item.amountWithoutDiscount - item.amount;
              return (
                <tr>
                  <td>
                    {item.name}
                    <span class="meta">{m.quantityTimes(formatNumber(item.quantity, lang), money(item.unitPrice))}</span>
                    {discount > 0 ? (
                      <span class="off">
                        {m.discount} −{money(discount)}
                      </span>
                    ) : null}
                  </td>
                  <td class="amt">
                    {discount > 0 ? <span class="was">{money(item.amountWithoutDiscount)}</span> : null}
                    {money(item.amount)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <p class="total">
        <span>{m.total}</span>
        <span>{money(terms.amount)}</span>
      </p>
      {terms.recurringProcessingModel ? <p class="saves">{m.payAlsoSaves(merchant)}</p> : null}
    </section>
  );
}
