// The checkout form's hidden `csrfToken` (hidden inputs the page emits are posted back
// unchanged). It is stateless, so it works without a session, without cookies and across
// instances (the key is shared through the database):
//
//   <attemptKey>.<issuedAt seconds>.<amount><currency>.<cart>.<HMAC-SHA256(key, "checkout-form|v3|reference|attempt|issuedAt|amount|currency|cart")>
//
// - bound to one payment link: a token from another link's page is refused;
// - time-limited: a page left open longer than FORM_TOKEN_TTL_SECONDS must be reloaded;
// - carries the form attempt: posting the same rendered form twice (double click, reload) is
//   recognised as one attempt, so it makes one submission and one processor call;
// - carries the price the page showed, and a digest of its cart (domain/links/cart.ts): if the
//   merchant changes the amount, the currency or the items (even to others of the same total)
//   while the page is open, the shopper sees the new price and cart again instead of being charged
//   for what was never shown.
// Cross-site posts are also refused by their Origin / Sec-Fetch-Site headers (web/security.ts).
import { createHmac, timingSafeEqual } from "node:crypto";
import { randomToken } from "../ids.ts";

export const FORM_TOKEN_TTL_SECONDS = 12 * 60 * 60;
const CLOCK_SKEW_SECONDS = 5 * 60;

export interface ShownPrice {
  amount: number;
  currency: string;
  /** The cart's digest (cartDigest of the link's items). */
  cart: string;
}

function mac(key: Buffer, reference: string, attempt: string, issuedAt: string, price: ShownPrice): string {
  return createHmac("sha256", key)
    .update(`checkout-form|v3|${reference}|${attempt}|${issuedAt}|${price.amount}|${price.currency}|${price.cart}`, "utf8")
    .digest("base64url");
}

export function newAttemptKey(): string {
  return randomToken(16, "base64url");
}

export function issueFormToken(key: Buffer, reference: string, now: Date, price: ShownPrice, attempt: string = newAttemptKey()): string {
  const issuedAt = String(Math.floor(now.getTime() / 1000));
  return `${attempt}.${issuedAt}.${price.amount}${price.currency}.${price.cart}.${mac(key, reference, attempt, issuedAt, price)}`;
}

/** The attempt key and shown price of a valid token for this link, or null. */
export function verifyFormToken(key: Buffer, reference: string, token: string, now: Date): ({ attemptKey: string } & ShownPrice) | null {
  const match = /^([A-Za-z0-9_-]{16,64})\.(\d{1,12})\.(\d{1,15})([A-Z]{3})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const [, attempt, issuedAt, amountText, currency, cart, signature] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const price = { amount: Number(amountText), currency, cart };
  const expected = Buffer.from(mac(key, reference, attempt, issuedAt, price));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const age = now.getTime() / 1000 - Number(issuedAt);
  if (age > FORM_TOKEN_TTL_SECONDS || age < -CLOCK_SKEW_SECONDS) return null;
  return { attemptKey: attempt, ...price };
}
