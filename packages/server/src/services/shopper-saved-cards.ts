// A session shopper's saved cards (docs/api.md#hosted-checkout-sessions): the cards this
// merchant's sessions saved under the session's merchantShopperReference, offered on its page, and
// the one a posted form chose, which must be one of them: another merchant's or another shopper's
// token, a disabled or an expired card is never charged.
import type { CheckoutLink } from "../db/checkout-repository.ts";
import { findShopperSavedCards, type ShopperSavedCard } from "../db/saved-cards-repository.ts";
import type { RecurringProcessingModel } from "../domain/links/types.ts";
import { cardOffered } from "../domain/payments/saved-card-offer.ts";
import type { CheckoutServiceDeps } from "./deps.ts";
import type { SavedCardChoice } from "./pay-by-link.ts";

type Deps = Pick<CheckoutServiceDeps, "db" | "tokenProcessor" | "now">;

/** The shopper whose cards this page may offer; null when it offers none. */
function shopperOf(deps: Deps, link: CheckoutLink): string | null {
  const shopper = link.session?.merchantShopperReference ?? null;
  // A page that only saves a card charges nothing, so it has no use for a saved one.
  if (shopper === null || link.terms.type === "TokenizeByLink" || !deps.tokenProcessor) return null;
  return shopper;
}

export async function offeredSavedCards(deps: Deps, link: CheckoutLink): Promise<ShopperSavedCard[]> {
  const shopper = shopperOf(deps, link);
  if (shopper === null) return [];
  const now = deps.now();
  return (await findShopperSavedCards(deps.db, link.merchantId, shopper)).filter((card) => cardOffered(card, now));
}

/** The chosen card, ready to charge, with what the submission keeps of it; undefined when it is not offered here. */
export async function chosenSavedCard(
  deps: Deps,
  link: CheckoutLink,
  token: string,
): Promise<{ choice: SavedCardChoice; summary: { brand: string; masked: string; last4: string; expiry: string } } | undefined> {
  const shopper = shopperOf(deps, link);
  if (shopper === null) return undefined;
  const [card] = await findShopperSavedCards(deps.db, link.merchantId, shopper, token);
  if (!card || !cardOffered(card, deps.now())) return undefined;
  return {
    choice: {
      token: card.token,
      facts: { brand: card.brand, masked: card.masked, last4: card.last4, expiry: card.expiry, usage: card.usage },
      recurringProcessingModel: (card.recurringProcessingModel ?? "CardOnFile") as RecurringProcessingModel,
    },
    summary: { brand: card.brand, masked: card.masked, last4: card.last4, expiry: card.expiry },
  };
}
