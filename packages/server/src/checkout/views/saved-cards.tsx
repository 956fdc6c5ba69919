/** @jsxRuntime automatic @jsxImportSource preact */
// A session shopper's saved cards as radio choices above the card form, with "use a new card" as
// the alternative (docs/api.md#hosted-checkout-sessions). Only brand, last four and expiry are
// shown; the choice posts the card's token, which the server checks belongs to this merchant and
// this shopper. Without the script, a stylesheet rule hides the card fields while a saved card is chosen.
import type { Messages } from "../i18n.ts";

export interface SavedCardOption {
  token: string;
  brand: string;
  last4: string;
  /** `MM/YYYY`. */
  expiry: string;
}

const BRAND_NAMES: Record<string, string> = {
  VI: "Visa",
  MC: "Mastercard",
  AX: "American Express",
  DC: "Diners Club",
  JC: "JCB",
  DI: "Discover",
  UP: "UnionPay",
};

export function SavedCards({ m, cards, chosen }: { m: Messages; cards: SavedCardOption[]; chosen: string | undefined }) {
  // The first card is chosen unless the shopper chose otherwise (a new card included) before.
  const selected = chosen ?? cards[0]?.token ?? "";
  return (
    <fieldset class="saved">
      <legend>{m.savedCardsTitle}</legend>
      {cards.map((card) => (
        <label class="choice" key={card.token}>
          <input type="radio" name="savedCard" value={card.token} checked={selected === card.token} data-saved="" />
          <span>{m.savedCardLabel(BRAND_NAMES[card.brand] ?? card.brand, card.last4, card.expiry)}</span>
        </label>
      ))}
      <label class="choice">
        <input type="radio" name="savedCard" value="" checked={selected === ""} />
        <span>{m.useNewCard}</span>
      </label>
    </fieldset>
  );
}
