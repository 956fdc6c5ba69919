// Which of a shopper's saved cards a session page offers (docs/api.md#hosted-checkout-sessions):
// not a disabled one, and not one whose expiry month has passed.

export interface OfferableCard {
  /** `MM/YYYY`. */
  expiry: string;
  disabled: boolean;
}

/** A card is valid to the end of its expiry month; an unreadable expiry is not offered. */
export function cardOffered(card: OfferableCard, now: Date): boolean {
  if (card.disabled) return false;
  const match = /^(\d{2})\/(\d{4})$/.exec(card.expiry);
  if (!match) return false;
  const month = Number(match[1]);
  const year = Number(match[2]);
  const thisYear = now.getUTCFullYear();
  return year > thisYear || (year === thisYear && month >= now.getUTCMonth() + 1);
}
