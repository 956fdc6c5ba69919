// How Adyen's Checkout API is spoken, apart from the adapter's calls (adyen.ts) and from what its
// answers and notifications mean to Paylink (adyen-notifications.ts): version and addresses, errors
// and which refuse a request for good, amounts in Adyen's minor units, a saved card's names there.
import { ISO_4217_EXPONENTS, wireExponent } from "../domain/money/currencies.ts";

/** The Checkout API version whose shapes this adapter speaks (and the fixtures of its tests copy). */
export const ADYEN_API_VERSION = "v71";
/** The test environment's API base; a configured `baseUrl` replaces it (the part before `/v71`). */
export const ADYEN_TEST_BASE = "https://checkout-test.adyen.com";

/** Adyen's live API base for a company account's prefix (Customer Area, Developers → API URLs). */
export function adyenLiveBase(liveEndpointUrlPrefix: string): string {
  return `https://${liveEndpointUrlPrefix}-checkout-live.adyenpayments.com/checkout`;
}

export class AdyenApiError extends Error {
  override readonly name = "AdyenApiError";
  constructor(
    readonly status: number,
    /** Adyen's `errorCode` (`14_018`, …), when it gave one. */
    readonly code: string | null,
    message: string,
    /** Adyen's own `message` (it names the field at fault, never a card or a key), when it gave one. */
    readonly adyenMessage: string | null = null,
  ) {
    super(message);
  }
}

/** A request Paylink cannot put to Adyen, so never sent: nothing happened at Adyen. */
export class AdyenUnsendableError extends Error {
  override readonly name: string = "AdyenUnsendableError";
}

/** An amount Adyen cannot take exactly in its currency's minor units: refused rather than rounded. */
export class AdyenAmountError extends AdyenUnsendableError {
  override readonly name = "AdyenAmountError";
}

/**
 * Adyen's idempotency answers a key whose first request is still being processed with 422 and
 * this code ("request already processed or in progress"): not a refusal, the outcome is unknown.
 */
const IDEMPOTENCY_IN_PROGRESS = "704";

/**
 * An answer that refuses the request for good: a 4xx other than "slow down", a time-out, the
 * credentials refused (the operator may fix those) and a retry of a request still running; the
 * request is asked again later then.
 */
export function isRefusal(error: unknown): error is AdyenApiError {
  return (
    error instanceof AdyenApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403, 408, 429].includes(error.status) &&
    !(error.status === 422 && error.code === IDEMPOTENCY_IN_PROGRESS)
  );
}

// ── Amounts ──

/**
 * Where Adyen's minor units differ from ISO 4217's (Adyen's "Currency codes and minor units"
 * page names exactly these four); every other currency has ISO's decimals at Adyen.
 */
const ADYEN_DECIMALS_UNLIKE_ISO: Readonly<Record<string, number>> = { CLP: 2, CVE: 0, IDR: 0, ISK: 2 };

/** How many decimals Adyen's API counts a currency's amounts in. */
export function adyenExponent(currency: string): number {
  const code = currency.toUpperCase();
  return ADYEN_DECIMALS_UNLIKE_ISO[code] ?? ISO_4217_EXPONENTS.get(code) ?? 2;
}

/**
 * Paylink's minor units (ISO's, but ISK in hundredths) → Adyen's. ISK is two-decimal at Adyen as
 * on Paylink's wire, so 48900 (489 kr.) is 48900 at both; IDR and CVE lose two decimals, CLP gains
 * two. An amount Adyen cannot take exactly is refused, never rounded.
 */
export function toAdyenAmount(amount: number, currency: string): number {
  const code = currency.toUpperCase();
  if (!Number.isSafeInteger(amount) || amount < 0) throw new AdyenAmountError(`${amount} is not an amount`);
  const shift = adyenExponent(code) - wireExponent(code);
  if (shift >= 0) return amount * 10 ** shift;
  const divisor = 10 ** -shift;
  if (amount % divisor !== 0) throw new AdyenAmountError(`${amount} ${code} has a fraction Adyen cannot take`);
  return amount / divisor;
}

/** Adyen's minor units → Paylink's (toAdyenAmount's inverse); an amount Paylink cannot hold exactly is refused, never rounded. */
export function fromAdyenAmount(value: number, currency: string): number {
  const code = currency.toUpperCase();
  if (!Number.isSafeInteger(value) || value < 0) throw new AdyenAmountError(`${value} is not an amount`);
  const shift = wireExponent(code) - adyenExponent(code);
  if (shift >= 0) return value * 10 ** shift;
  const divisor = 10 ** -shift;
  if (value % divisor !== 0) throw new AdyenAmountError(`${value} ${code} at Adyen has a fraction Paylink cannot hold`);
  return value / divisor;
}

// ── A saved card at Adyen ──

/**
 * The shopper a saved card is stored under at Adyen. Paylink knows no shopper across links, and
 * Adyen forbids personal data here, so each saving attempt is its own shopper: the same value on
 * every retry of the attempt (one stored card, not two), and rebuilt from the attempt's reference
 * alone when the card is charged later, with nothing more to store.
 */
export function adyenShopperReference(checkoutReference: string): string {
  return `paylink-${checkoutReference}`;
}

/** Between Adyen's stored-method id (letters and digits) and the saving attempt's reference (base62): in neither. */
const TOKEN_SEPARATOR = ".";

/**
 * The token Paylink keeps (and gives the merchant) for a card saved at Adyen. Adyen charges a
 * stored card only with the shopperReference it was stored under, and a token charge carries
 * nothing but the token; so the token holds both Adyen's storedPaymentMethodId and the saving
 * attempt's checkoutReference the shopper reference is rebuilt from
 * (docs/decisions.md#adyen-saved-card-tokens). 16 + 1 + 20 characters: within the API's 64.
 */
export function adyenToken(storedPaymentMethodId: string, savedBy: string): string {
  return `${storedPaymentMethodId}${TOKEN_SEPARATOR}${savedBy}`;
}

/** What an Adyen token holds; a token of another form (none Paylink made for Adyen) cannot be charged there. */
export function savedCardOf(token: string): { storedPaymentMethodId: string; savedBy: string } {
  const at = token.lastIndexOf(TOKEN_SEPARATOR);
  const storedPaymentMethodId = token.slice(0, at);
  const savedBy = token.slice(at + 1);
  if (at <= 0 || savedBy === "") throw new AdyenUnsendableError("this token was not saved through Adyen by Paylink");
  return { storedPaymentMethodId, savedBy };
}
