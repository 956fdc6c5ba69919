// How Stripe's API is spoken, apart from the adapter's calls (stripe.ts) and from what its objects
// mean to Paylink (stripe-events.ts): address and version, errors and which refuse a request for
// good, amounts in Stripe's minor units, form encoding, the Stripe-Signature check, object shapes.
import { createHmac, timingSafeEqual } from "node:crypto";
import { wireExponent } from "../domain/money/currencies.ts";

/** Stripe's API; a configured `baseUrl` replaces it (the part before `/v1`). */
export const STRIPE_API_BASE = "https://api.stripe.com";
/** The API version the shapes read here were checked against: answers keep them whatever the account's default. */
export const STRIPE_API_VERSION = "2026-07-29.dahlia";
/** A webhook event signed longer ago than this is refused, so a captured one cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

export class StripeApiError extends Error {
  override readonly name = "StripeApiError";
  constructor(
    readonly status: number,
    /** Stripe's `error.code` (`charge_already_refunded`, …), when it gave one. */
    readonly code: string | null,
    message: string,
    /** Stripe's `error.type` (`card_error`, `idempotency_error`, …), when it gave one. */
    readonly type: string | null = null,
    /** The PaymentIntent a card error left behind (a declined off-session charge names its own). */
    readonly paymentIntent: PaymentIntent | null = null,
  ) {
    super(message);
  }
}

/** An amount Stripe cannot take in its currency's minor units: refused rather than rounded. */
export class StripeAmountError extends Error {
  override readonly name = "StripeAmountError";
}

/**
 * An answer that refuses the request for good, so nothing was done: a 4xx other than the
 * credentials refused, "slow down", a time-out and a clash over an Idempotency-Key (the operator
 * may fix those, or the request is still running; it is asked again later), or an amount Stripe
 * cannot take (refused before it was sent).
 */
export function isRefusal(error: unknown): error is StripeApiError | StripeAmountError {
  if (error instanceof StripeAmountError) return true;
  return (
    error instanceof StripeApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403, 408, 409, 429].includes(error.status) &&
    error.type !== "idempotency_error"
  );
}

export function refusalReason(error: StripeApiError | StripeAmountError): string {
  return error instanceof StripeApiError ? error.message.replace(/^Stripe refused [A-Z]+ \S+ /, "Refused by Stripe ") : error.message;
}

// ── Amounts ──

/** Stripe's zero-decimal currencies (its currency docs' list): amounts are whole units. */
const STRIPE_ZERO_DECIMAL = new Set([
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "JPY",
  "KMF",
  "KRW",
  "MGA",
  "PYG",
  "RWF",
  "UGX",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF",
]);
/** Stripe's three-decimal currencies: the last digit must be 0. */
const STRIPE_THREE_DECIMAL = new Set(["BHD", "JOD", "KWD", "OMR", "TND"]);
/** Stripe takes at most eight digits in an amount. */
const STRIPE_MAX_AMOUNT = 99_999_999;

/**
 * Paylink's minor units (ISO's, ISK in hundredths) → Stripe's, by Stripe's currency rules. ISK is
 * Stripe's special case: two decimals in the API (100 = 1 kr.) but whole krónur only, so 48900
 * (489 kr.) is 48900 at Stripe too and 48950 is refused. An amount Stripe cannot take exactly is
 * refused, never rounded.
 */
export function toStripeAmount(amount: number, currency: string): number {
  const code = currency.toUpperCase();
  if (!Number.isSafeInteger(amount) || amount < 0) throw new StripeAmountError(`${amount} is not an amount`);
  const shift = stripeExponent(code) - wireExponent(code);
  let converted = amount;
  if (shift > 0) converted = amount * 10 ** shift;
  if (shift < 0) {
    const divisor = 10 ** -shift;
    if (amount % divisor !== 0) throw new StripeAmountError(`${amount} ${code} has a fraction Stripe cannot take`);
    converted = amount / divisor;
  }
  if (code === "ISK" && converted % 100 !== 0) throw new StripeAmountError(`${amount} ISK is not whole krónur, which Stripe requires`);
  if (STRIPE_THREE_DECIMAL.has(code) && converted % 10 !== 0) {
    throw new StripeAmountError(`${amount} ${code}: Stripe takes three-decimal amounts only with a last digit of 0`);
  }
  if (converted > STRIPE_MAX_AMOUNT) throw new StripeAmountError(`${amount} ${code} is more than Stripe takes in one payment`);
  return converted;
}

/** Stripe's amount (a dispute's, say) → Paylink's minor units: the inverse of toStripeAmount. */
export function fromStripeAmount(amount: number, currency: string): number {
  const code = currency.toUpperCase();
  const shift = wireExponent(code) - stripeExponent(code);
  return shift >= 0 ? amount * 10 ** shift : Math.round(amount / 10 ** -shift);
}

function stripeExponent(code: string): number {
  return STRIPE_ZERO_DECIMAL.has(code) ? 0 : STRIPE_THREE_DECIMAL.has(code) ? 3 : 2;
}

// ── Form encoding ──

type FormValue = string | number | boolean | null | undefined | FormParams | FormValue[];
export interface FormParams {
  [name: string]: FormValue;
}

/** Stripe's form encoding: nested objects and lists as bracketed names (`line_items[0][quantity]=1`). */
export function formEncode(params: FormParams): string {
  const pairs: Array<[string, string]> = [];
  const add = (name: string, value: FormValue) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) for (const [index, item] of value.entries()) add(`${name}[${index}]`, item);
    else if (typeof value === "object") for (const [key, inner] of Object.entries(value)) add(`${name}[${key}]`, inner);
    else pairs.push([name, String(value)]);
  };
  for (const [name, value] of Object.entries(params)) add(name, value);
  return new URLSearchParams(pairs).toString();
}

// ── Webhook signatures ──

/**
 * Stripe's webhook signature (its docs, "Verify signatures manually"): `Stripe-Signature:
 * t={unix seconds},v1={hex}[,v1=…]`, the hex being HMAC-SHA256 of `{t}.{raw body}` keyed with
 * the endpoint's whole signing secret (`whsec_…`). Any one v1 that matches will do (Stripe sends
 * several while a secret is being rolled); the timestamp must be within the tolerance of now.
 */
export function verifyStripeSignature(rawBody: string, header: string, secret: string, now: Date): boolean {
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t") timestamp = value;
    else if (key === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, "hex"));
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) return false;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = createHmac("sha256", secret).update(`${timestamp}.${rawBody}`, "utf8").digest();
  let matched = false;
  // Every candidate is compared in constant time; none is skipped once one matched.
  for (const signature of signatures) if (timingSafeEqual(signature, expected)) matched = true;
  return matched;
}

// ── Stripe's objects, as far as Paylink reads them ──

export interface StripeCard {
  brand?: string | null;
  funding?: string | null;
  last4?: string | null;
  exp_month?: number | null;
  exp_year?: number | null;
  authorization_code?: string | null;
}

export interface PaymentMethod {
  id: string;
  object?: string;
  customer?: string | { id?: string } | null;
  card?: StripeCard | null;
}

interface Charge {
  id: string;
  object?: string;
  payment_method_details?: { card?: StripeCard | null } | null;
}

export interface PaymentIntent {
  id: string;
  object?: string;
  status?: string;
  amount?: number;
  amount_received?: number;
  setup_future_usage?: string | null;
  latest_charge?: string | Charge | null;
  payment_method?: string | PaymentMethod | null;
  metadata?: Record<string, string> | null;
  last_payment_error?: { code?: string | null; decline_code?: string | null; message?: string | null } | null;
  next_action?: { type?: string; redirect_to_url?: { url?: string | null } | null } | null;
}

export interface Refund {
  id: string;
  object?: string;
  status?: string | null;
  payment_intent?: string | { id?: string } | null;
  failure_reason?: string | null;
  metadata?: Record<string, string> | null;
}

export interface Dispute {
  id: string;
  object?: string;
  amount?: number;
  currency?: string;
  charge?: string | { id?: string } | null;
  payment_intent?: string | { id?: string } | null;
  reason?: string | null;
  status?: string;
}

interface SetupIntent {
  id: string;
  object?: string;
  status?: string;
  payment_method?: string | PaymentMethod | null;
}

export interface CheckoutSession {
  id: string;
  object?: string;
  url?: string | null;
  status?: string | null;
  mode?: string;
  payment_status?: string;
  client_reference_id?: string | null;
  metadata?: Record<string, string> | null;
  payment_intent?: string | PaymentIntent | null;
  setup_intent?: string | SetupIntent | null;
}

export interface StripeEvent {
  id?: string;
  object?: string;
  type?: string;
  created?: number;
  data?: { object?: { object?: string } };
}
