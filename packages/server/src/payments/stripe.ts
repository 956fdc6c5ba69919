// Stripe as a processor (docs/processors.md#stripe): the shopper pays on a Stripe Checkout page,
// Paylink reads the outcome from the Checkout Session (its status call) or from Stripe's signed
// webhook events, and gives back an approval it cannot sell with a refund or a cancel. Spoken with
// plain fetch and form encoding (docs/decisions.md#libraries-and-own-code): five calls need no SDK.
import { createHmac, timingSafeEqual } from "node:crypto";
import { wireExponent } from "../domain/money/currencies.ts";
import type { Lang } from "../web/i18n.ts";
import type {
  HostedNotification,
  HostedOutcome,
  HostedPaymentProcessor,
  HostedPaymentRequest,
  HostedPaymentStart,
  ReportedCard,
} from "./hosted.ts";
import type { CardUsage } from "./processor.ts";
import type { StripeConfig } from "./processor-config.ts";

/** Stripe's API; a configured `baseUrl` replaces it (the part before `/v1`). */
export const STRIPE_API_BASE = "https://api.stripe.com";
/** The API version the shapes read here were checked against: answers keep them whatever the account's default. */
export const STRIPE_API_VERSION = "2026-07-29.dahlia";
/** A webhook event signed longer ago than this is refused, so a captured one cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;
/**
 * Stripe closes a Checkout Session no sooner than 30 minutes after its creation; Paylink's page
 * holds the sale slot for 15. The session is asked to close at Paylink's time plus this margin
 * for clocks and latency, and is closed at Stripe by Paylink itself (#closeIfPastPaylinksTime).
 */
const STRIPE_MIN_OPEN_SECONDS = 31 * 60;
const CALL_TIMEOUT_MS = 20_000;
/** Paylink's own closing time of the page, in the session's metadata (Stripe's is later, above). */
const CLOSES_AT_KEY = "paylinkClosesAt";
/** Paylink stores a payfacReference of at most this many characters (GET /payments/{ref} looks up no longer ones). */
const MAX_PAYFAC_REFERENCE = 64;

export class StripeApiError extends Error {
  override readonly name = "StripeApiError";
  constructor(
    readonly status: number,
    /** Stripe's `error.code` (`charge_already_refunded`, …), when it gave one. */
    readonly code: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** An amount Stripe cannot take in its currency's minor units: refused rather than rounded. */
export class StripeAmountError extends Error {
  override readonly name = "StripeAmountError";
}

export class StripeProcessor implements HostedPaymentProcessor {
  readonly type = "stripe";
  readonly notificationAnswer = { contentType: "application/json; charset=utf-8", body: '{"received":true}' };
  readonly #fetch: typeof globalThis.fetch;
  readonly #now: () => Date;

  constructor(
    private readonly config: StripeConfig,
    options: { fetch?: typeof globalThis.fetch; now?: () => Date } = {},
  ) {
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#now = options.now ?? (() => new Date());
  }

  async startHostedPayment(request: HostedPaymentRequest): Promise<HostedPaymentStart> {
    const now = this.#now();
    const closesAt = Math.ceil(request.expiresAt.getTime() / 1000);
    const reference = { checkoutReference: request.checkoutReference };
    const tokenize = request.kind === "tokenization";
    const params: FormParams = {
      mode: tokenize ? "setup" : "payment",
      success_url: request.returnUrl,
      cancel_url: request.cancelUrl,
      // Stripe's minimum; Paylink closes the session itself at its own time (readOutcome).
      expires_at: Math.max(closesAt, Math.floor(now.getTime() / 1000) + STRIPE_MIN_OPEN_SECONDS),
      client_reference_id: request.checkoutReference,
      metadata: { ...reference, [CLOSES_AT_KEY]: String(closesAt) },
      locale: stripeLocale(request.culture),
      // A saved card is only reusable attached to a Customer.
      ...(request.saveCard || tokenize ? { customer_creation: "always" } : {}),
    };
    if (tokenize) {
      // Setup mode without payment_method_types needs the currency (Stripe's parameter docs).
      params.currency = request.currency.toLowerCase();
      params.setup_intent_data = { metadata: reference };
    } else {
      params.line_items = lineItems(request);
      params.payment_intent_data = {
        metadata: reference,
        ...(request.saveCard ? { setup_future_usage: "off_session" } : {}),
        // Only a manual capture has a Stripe equivalent; a delayed capture or a pre-authorisation
        // has none, and Paylink refuses such sessions on Stripe terminals (docs/processors.md).
        ...(request.capture?.manual ? { capture_method: "manual" } : {}),
      };
    }
    const session = await this.#call<CheckoutSession>("POST", "/v1/checkout/sessions", {
      params,
      idempotencyKey: request.checkoutReference,
      signal: request.signal,
    });
    if (typeof session.url !== "string" || typeof session.id !== "string") {
      throw new StripeApiError(200, null, "Stripe answered a Checkout Session without its id or url");
    }
    return { redirectUrl: session.url, processorReference: session.id };
  }

  async readOutcome(attempt: { checkoutReference: string; processorReference: string; signal?: AbortSignal }): Promise<HostedOutcome> {
    const session = await this.#readSession(attempt.processorReference, attempt.signal);
    if (session.client_reference_id !== attempt.checkoutReference) {
      throw new StripeApiError(200, null, "the Checkout Session is not the attempt's");
    }
    const outcome = sessionOutcome(session);
    if (outcome.kind !== "open" || session.status !== "open") return outcome;
    return this.#closeIfPastPaylinksTime(session, attempt.signal);
  }

  parseNotification(headers: Record<string, string | string[] | undefined>, rawBody: string): HostedNotification[] | null {
    const header = headers["stripe-signature"];
    const signature = Array.isArray(header) ? header.join(",") : header;
    if (!signature || !verifyStripeSignature(rawBody, signature, this.config.webhookSecret, this.#now())) return null;
    let event: StripeEvent;
    try {
      event = JSON.parse(rawBody) as StripeEvent;
    } catch {
      return null;
    }
    const session = event?.data?.object;
    if (event?.object !== "event" || !session || session.object !== "checkout.session") return [];
    const checkoutReference = text(session.client_reference_id);
    if (!checkoutReference) return [];
    switch (event.type) {
      case "checkout.session.completed":
      case "checkout.session.async_payment_succeeded":
        return [{ checkoutReference, outcome: sessionOutcome(session) }];
      case "checkout.session.async_payment_failed":
        return [
          {
            checkoutReference,
            outcome: { kind: "declined", payfacReference: idOf(session.payment_intent) ?? "", reason: "Declined", card: NO_CARD },
          },
        ];
      case "checkout.session.expired":
        return [{ checkoutReference, outcome: { kind: "expired" } }];
      default:
        // Paylink registers for the four events above; anything else the endpoint is sent
        // (disputes, charges) is acknowledged so Stripe stops sending it, and changes nothing.
        return [];
    }
  }

  async cancelApproval(payfacReference: string, cancelReference: string): Promise<void> {
    // A card saved in setup mode moved no money: there is nothing to give back.
    if (payfacReference.startsWith("seti_")) return;
    // An authorisation not yet captured is cancelled (the hold is released and nothing reaches the
    // shopper's statement); a captured payment is refunded. Stripe refuses a refund of an
    // uncaptured PaymentIntent and a cancel of a captured one, so its state is read first. A retry
    // after a lost answer finds it cancelled, or repeats the refund under the same key.
    const intent = await this.#call<PaymentIntent>("GET", `/v1/payment_intents/${encodeURIComponent(payfacReference)}`);
    if (intent.status === "canceled") return;
    if (intent.status === "requires_capture") {
      await this.#call("POST", `/v1/payment_intents/${encodeURIComponent(payfacReference)}/cancel`, {
        params: { cancellation_reason: "abandoned" },
        idempotencyKey: cancelReference,
      });
      return;
    }
    try {
      await this.#call("POST", "/v1/refunds", {
        params: { payment_intent: payfacReference, metadata: { cancelReference } },
        idempotencyKey: cancelReference,
      });
    } catch (error) {
      // Refunded already (by this key long ago, or in Stripe's dashboard): nothing stands.
      if (error instanceof StripeApiError && error.code === "charge_already_refunded") return;
      throw error;
    }
  }

  /** The session with what its outcome needs: the PaymentIntent's charge, or the saved card. */
  #readSession(id: string, signal?: AbortSignal): Promise<CheckoutSession> {
    return this.#call<CheckoutSession>("GET", `/v1/checkout/sessions/${encodeURIComponent(id)}`, {
      query: [
        ["expand[]", "payment_intent.latest_charge"],
        ["expand[]", "setup_intent.payment_method"],
      ],
      signal,
    });
  }

  /**
   * Paylink's page took payments until its own time, shorter than Stripe allows: once past it, the
   * session is expired at Stripe so that nobody pays after Paylink released the sale slot. Stripe
   * refuses to expire a session that completed meanwhile; that session is read again.
   */
  async #closeIfPastPaylinksTime(session: CheckoutSession, signal?: AbortSignal): Promise<HostedOutcome> {
    const closesAt = Number(session.metadata?.[CLOSES_AT_KEY]);
    if (!Number.isFinite(closesAt) || this.#now().getTime() / 1000 < closesAt) return { kind: "open" };
    try {
      const expired = await this.#call<CheckoutSession>("POST", `/v1/checkout/sessions/${encodeURIComponent(session.id)}/expire`, {
        params: {},
        signal,
      });
      return sessionOutcome(expired);
    } catch (error) {
      if (!(error instanceof StripeApiError) || error.status !== 400) throw error;
      return sessionOutcome(await this.#readSession(session.id, signal));
    }
  }

  async #call<T>(
    method: "GET" | "POST",
    path: string,
    options: { params?: FormParams; query?: Array<[string, string]>; idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const base = (this.config.baseUrl ?? STRIPE_API_BASE).replace(/\/+$/, "");
    const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : "";
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.config.secretKey}`,
      "stripe-version": STRIPE_API_VERSION,
    };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    let body: string | undefined;
    if (method === "POST") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = formEncode(options.params ?? {});
    }
    const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
    const response = await this.#fetch(`${base}${path}${query}`, {
      method,
      headers,
      body,
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
    const answer = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer);
    } catch {
      throw new StripeApiError(response.status, null, `Stripe answered ${method} ${path} with ${response.status} and no JSON`);
    }
    if (!response.ok) {
      const error = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      // Stripe's message names the parameter at fault, never the key.
      throw new StripeApiError(
        response.status,
        text(error?.code),
        `Stripe refused ${method} ${path} (${response.status}): ${text(error?.message) ?? ""}`,
      );
    }
    return parsed as T;
  }
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
  const stripeExponent = STRIPE_ZERO_DECIMAL.has(code) ? 0 : STRIPE_THREE_DECIMAL.has(code) ? 3 : 2;
  const shift = stripeExponent - wireExponent(code);
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

/**
 * The page's lines: the link's items when Stripe can show them exactly (whole quantities, each
 * line its unit price times its quantity, adding up to the amount); otherwise one line of the
 * whole amount, so the shopper is always charged exactly Paylink's amount.
 */
function lineItems(request: HostedPaymentRequest): FormParams[] {
  const currency = request.currency.toLowerCase();
  const total = toStripeAmount(request.amount, request.currency);
  const line = (name: string, unitAmount: number, quantity: number): FormParams => ({
    price_data: { currency, unit_amount: unitAmount, product_data: { name } },
    quantity,
  });
  const { items } = request;
  const exact =
    items.length > 0 &&
    items.length <= 100 &&
    items.every((item) => Number.isInteger(item.quantity) && item.quantity > 0 && item.unitPrice * item.quantity === item.amount) &&
    items.reduce((sum, item) => sum + item.amount, 0) === request.amount;
  if (exact) {
    try {
      return items.map((item) => line(item.name || "—", toStripeAmount(item.unitPrice, request.currency), item.quantity));
    } catch (error) {
      if (!(error instanceof StripeAmountError)) throw error;
    }
  }
  const name =
    items
      .map((item) => item.name)
      .filter(Boolean)
      .join(", ")
      .slice(0, 250) || (request.culture === "is" ? "Greiðsla" : "Payment");
  return [line(name, total, 1)];
}

/** Stripe Checkout has no Icelandic page: `auto` shows the shopper's browser language. */
function stripeLocale(lang: Lang): string {
  return lang === "en" ? "en" : "auto";
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

// ── What a session says ──

interface StripeCard {
  brand?: string | null;
  funding?: string | null;
  last4?: string | null;
  exp_month?: number | null;
  exp_year?: number | null;
  authorization_code?: string | null;
}

interface PaymentMethod {
  id: string;
  object?: string;
  card?: StripeCard | null;
}

interface Charge {
  id: string;
  object?: string;
  payment_method_details?: { card?: StripeCard | null } | null;
}

interface PaymentIntent {
  id: string;
  object?: string;
  status?: string;
  setup_future_usage?: string | null;
  latest_charge?: string | Charge | null;
  payment_method?: string | PaymentMethod | null;
}

interface SetupIntent {
  id: string;
  object?: string;
  status?: string;
  payment_method?: string | PaymentMethod | null;
}

interface CheckoutSession {
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

interface StripeEvent {
  object?: string;
  type?: string;
  data?: { object?: CheckoutSession };
}

/**
 * The outcome a Checkout Session states. In a webhook event its PaymentIntent and SetupIntent are
 * ids only: the approval is known but not the card or the saved card's token, which the status
 * call (expanded) then adds; an approval that waits for a token decides nothing until it has it.
 */
function sessionOutcome(session: CheckoutSession): HostedOutcome {
  if (session.status === "expired") return { kind: "expired" };
  if (session.status !== "complete") return { kind: "open" };
  if (session.mode === "setup") {
    const intent = objectOf(session.setup_intent);
    const reference = idOf(session.setup_intent);
    if (!reference || (intent && intent.status !== "succeeded")) return { kind: "open" };
    const method = objectOf(intent?.payment_method);
    return approved(reference, "", idOf(intent?.payment_method), method?.card ?? null);
  }
  const intent = objectOf(session.payment_intent);
  const reference = idOf(session.payment_intent);
  if (!reference) return { kind: "open" };
  // `paid`: captured. An authorisation held for a manual capture completes the session `unpaid`
  // with its PaymentIntent `requires_capture`; `unpaid` otherwise is a payment method that
  // settles later (its async_payment_* event tells).
  const authorised = session.payment_status === "paid" || intent?.status === "requires_capture";
  if (!authorised) {
    if (intent?.status === "requires_payment_method" || intent?.status === "canceled") {
      return { kind: "declined", payfacReference: checkedReference(reference), reason: "Declined", card: NO_CARD };
    }
    return { kind: "open" };
  }
  const charge = objectOf(intent?.latest_charge);
  const card = charge?.payment_method_details?.card ?? null;
  return approved(reference, card?.authorization_code ?? "", tokenOf(intent), card);
}

function approved(reference: string, authCode: string, token: string | null, card: StripeCard | null): HostedOutcome {
  return { kind: "approved", payfacReference: checkedReference(reference), authCode, token, card: reportedCard(card) };
}

/**
 * The saved card of a payment that asked to save one (setup_future_usage): its PaymentMethod. Every
 * paid PaymentIntent names the PaymentMethod it used, but only a saved one can be charged again.
 */
function tokenOf(intent: PaymentIntent | null): string | null {
  return intent?.setup_future_usage ? idOf(intent.payment_method) : null;
}

/**
 * Stripe's ids are far shorter than Paylink's 64 characters (`pi_` and 24); a longer one is
 * refused loudly rather than cut, which would name another payment.
 */
function checkedReference(reference: string): string {
  if (reference.length > MAX_PAYFAC_REFERENCE)
    throw new StripeApiError(200, null, "Stripe named a payment by an id longer than Paylink keeps");
  return reference;
}

const BRAND_CODES: Record<string, string> = {
  amex: "AX",
  diners: "DC",
  discover: "DI",
  jcb: "JC",
  mastercard: "MC",
  unionpay: "UP",
  visa: "VI",
};

function reportedCard(card: StripeCard | null): ReportedCard {
  if (!card) return NO_CARD;
  const usage: CardUsage | null = card.funding === "debit" ? "Debit" : card.funding === "credit" ? "Credit" : null;
  const expiry =
    typeof card.exp_month === "number" && typeof card.exp_year === "number"
      ? `${String(card.exp_month).padStart(2, "0")}/${card.exp_year}`
      : null;
  return {
    brand: card.brand ? (BRAND_CODES[card.brand] ?? "OT") : null,
    usage,
    // Stripe reports the last four only; the first six are not Paylink's to show.
    masked: null,
    last4: text(card.last4),
    expiry,
  };
}

const NO_CARD: ReportedCard = { brand: null, usage: null, masked: null, last4: null, expiry: null };

function idOf(value: string | { id?: unknown } | null | undefined): string | null {
  if (typeof value === "string") return value || null;
  return text(value?.id);
}

function objectOf<T extends object>(value: string | T | null | undefined): T | null {
  return value !== null && typeof value === "object" ? value : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
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
