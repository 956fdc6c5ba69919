// Stripe as a processor (docs/processors.md#stripe): the shopper pays on a Stripe Checkout page,
// Paylink reads the outcome from the Checkout Session (its status call) or from Stripe's signed
// webhook events, and gives back an approval it cannot sell with a refund or a cancel. After the
// sale, saved cards are charged with off-session PaymentIntents, and refunds, reversals, captures
// and adjustments are Stripe's own calls; their results and disputes come as signed events too.
// Spoken with plain fetch and form encoding (docs/decisions.md#libraries-and-own-code): a dozen
// calls need no SDK.
import { createHmac, timingSafeEqual } from "node:crypto";
import { wireExponent } from "../domain/money/currencies.ts";
import type { Lang } from "../web/i18n.ts";
import type {
  DisputeStatus,
  HostedNotification,
  HostedOutcome,
  HostedPaymentProcessor,
  HostedPaymentRequest,
  HostedPaymentStart,
  ReportedCard,
} from "./hosted.ts";
import {
  type AfterSaleProcessor,
  type CardUsage,
  type ModificationRequest,
  type ModificationResult,
  type TokenChargeRequest,
  type TokenChargeResult,
  tokenChargeReversalReference,
} from "./processor.ts";
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
/**
 * Marks a PaymentIntent as a saved-card charge of Paylink's (besides its checkoutReference, which
 * Checkout's PaymentIntents carry too): only those are decided by payment_intent.* events, a
 * Checkout payment is decided by its session's events.
 */
const TOKEN_CHARGE_KEY = "paylinkCharge";
const TOKEN_CHARGE_VALUE = "saved-card";

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

export class StripeProcessor implements HostedPaymentProcessor, AfterSaleProcessor {
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
        // A manual capture is Stripe's too (captured by #capture, once). A delayed capture and an
        // adjustable pre-authorisation are refused on Stripe terminals (domain/processors/supported.ts).
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
    const object = event?.data?.object;
    if (event?.object !== "event" || typeof event.type !== "string" || !object) return [];
    switch (object.object) {
      case "checkout.session":
        return sessionNotifications(event.type, object as CheckoutSession);
      case "payment_intent":
        return tokenChargeNotifications(event.type, object as PaymentIntent);
      case "refund":
        return refundNotifications(object as Refund);
      case "dispute":
        return disputeNotifications(event, object as Dispute);
      default:
        // Anything else the endpoint is sent (charges, customers…) is acknowledged so Stripe stops
        // sending it, and changes nothing.
        return [];
    }
  }

  async cancelApproval(payfacReference: string, cancelReference: string): Promise<void> {
    // A card saved in setup mode moved no money: there is nothing to give back.
    if (payfacReference.startsWith("seti_")) return;
    await this.#voidPaymentIntent(await this.#readIntent(payfacReference), cancelReference);
  }

  // ── After the sale: saved-card charges and modifications ──

  /**
   * An off-session PaymentIntent for the saved card, confirmed at once and keyed by the charge's
   * checkoutReference (a retry, or a replay by reverseCharge, gets Stripe's stored answer for 24 h).
   * Stripe charges a saved PaymentMethod only with the Customer it is attached to: that is read
   * from the PaymentMethod (the token), so the token stays Stripe's own `pm_…` id.
   */
  chargeToken(request: TokenChargeRequest): Promise<TokenChargeResult> {
    return this.#charge(request, true);
  }

  /** `askShopper`: whether a charge the bank wants the cardholder for is confirmed again for them (never for a replay). */
  async #charge(request: Omit<TokenChargeRequest, "signal"> & { signal?: AbortSignal }, askShopper: boolean): Promise<TokenChargeResult> {
    const method = await this.#call<PaymentMethod>("GET", `/v1/payment_methods/${encodeURIComponent(request.token)}`, {
      signal: request.signal,
    });
    const customer = idOf(method.customer);
    if (!customer) {
      // Not attached to a Customer: Stripe would refuse it off-session. A refusal, nothing charged.
      throw new StripeApiError(
        400,
        "payment_method_not_attached",
        "the saved card is attached to no Stripe Customer and cannot be charged again",
      );
    }
    const metadata = { checkoutReference: request.checkoutReference, [TOKEN_CHARGE_KEY]: TOKEN_CHARGE_VALUE };
    let intent = await this.#cardCall(() =>
      this.#call<PaymentIntent>("POST", "/v1/payment_intents", {
        params: {
          amount: toStripeAmount(request.amount, request.currency),
          currency: request.currency.toLowerCase(),
          customer,
          payment_method: request.token,
          off_session: true,
          confirm: true,
          metadata,
          expand: ["latest_charge"],
        },
        idempotencyKey: request.checkoutReference,
        signal: request.signal,
      }),
    );
    // The bank wants the cardholder (3-D Secure), which an off-session charge cannot ask for: the
    // same PaymentIntent is confirmed again on-session with a return address, and Stripe answers
    // with its authentication page (its docs: "manually handle redirects", next_action.redirect_to_url).
    if (needsAuthentication(intent) && askShopper) {
      intent = await this.#cardCall(() =>
        this.#call<PaymentIntent>("POST", `/v1/payment_intents/${encodeURIComponent(intent.id)}/confirm`, {
          params: { payment_method: request.token, return_url: request.returnUrl },
          idempotencyKey: `${request.checkoutReference}-authenticate`,
          signal: request.signal,
        }),
      );
    }
    return tokenChargeResult(intent, request);
  }

  async reverseCharge(checkoutReference: string, charge?: Omit<TokenChargeRequest, "signal">): Promise<void> {
    // Stripe keeps an idempotent answer for 24 hours: the same request under the same key answers
    // what the lost one did (or, if Stripe never saw it, charges now), and that PaymentIntent is
    // then voided — either way nothing stays charged. Stripe's search is not used to find it: its
    // index lags behind writes (Stripe's docs: not for read-after-write), which is this very case.
    if (!charge) throw new Error(`Stripe's charge ${checkoutReference} cannot be found without its request`);
    let intent: PaymentIntent;
    try {
      // A charge Paylink gave up on never asks for the shopper again.
      const replayed = await this.#charge({ ...charge, checkoutReference }, false);
      if (replayed.approved === "shopper") throw new StripeApiError(200, null, "a charge without a return address asked for its shopper");
      // A decline is voided too: one still waiting for a cardholder nobody will send is cancelled.
      intent = await this.#readIntent(replayed.payfacReference);
    } catch (error) {
      // Stripe refuses the request itself (a detached card, say): nothing was charged.
      if (isRefusal(error)) return;
      throw error;
    }
    await this.#voidPaymentIntent(intent, tokenChargeReversalReference(checkoutReference));
  }

  refund(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify(() => this.#refund(request, request.originalPayfacReference, toStripeAmount(request.amount, request.currency)));
  }

  /**
   * An authorisation still held is cancelled (released); a captured one is refunded of what is not
   * yet refunded at Stripe, which after a partial capture is the captured part only: Stripe
   * released the rest when it captured.
   */
  cancelOrRefund(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify(async () => {
      const intent = await this.#readIntent(request.originalPayfacReference);
      if (intent.status === "requires_capture") {
        const canceled = await this.#call<PaymentIntent>("POST", `/v1/payment_intents/${encodeURIComponent(intent.id)}/cancel`, {
          params: { cancellation_reason: "requested_by_customer" },
          idempotencyKey: request.modificationReference,
          signal: request.signal,
        });
        return canceled.status === "canceled" ? { accepted: true } : unexpected("cancel", canceled.status);
      }
      const amount = toStripeAmount(request.amount, request.currency);
      // Paylink's rest can be more than Stripe holds (the released part of a partial capture): the rest there.
      return this.#refund(request, intent.id, amount >= (intent.amount_received ?? 0) ? undefined : amount);
    });
  }

  /**
   * Stripe captures a PaymentIntent once and releases what was not captured (multicapture, with
   * `final_capture=false`, exists only for accounts Stripe enabled it for, and is not used): a
   * later capture of the same payment is refused by Stripe, and so ends declined here.
   */
  capture(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify(async () => {
      const captured = await this.#call<PaymentIntent>(
        "POST",
        `/v1/payment_intents/${encodeURIComponent(request.originalPayfacReference)}/capture`,
        {
          params: {
            amount_to_capture: toStripeAmount(request.amount, request.currency),
            metadata: { paylinkReference: request.modificationReference },
          },
          idempotencyKey: request.modificationReference,
          signal: request.signal,
        },
      );
      return captured.status === "succeeded" ? { accepted: true } : unexpected("capture", captured.status);
    });
  }

  /** Stripe can raise an authorisation (increment_authorization, where the card allows it) but never lower one. */
  adjustAuthorisation(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify(async () => {
      const intent = await this.#readIntent(request.originalPayfacReference);
      const amount = toStripeAmount(request.amount, request.currency);
      if (amount === intent.amount) return { accepted: true };
      if (amount < (intent.amount ?? 0)) {
        return { accepted: false, reason: "Stripe cannot lower an authorisation; capture the smaller amount instead." };
      }
      const raised = await this.#call<PaymentIntent>(
        "POST",
        `/v1/payment_intents/${encodeURIComponent(intent.id)}/increment_authorization`,
        {
          params: { amount, metadata: { paylinkReference: request.modificationReference } },
          idempotencyKey: request.modificationReference,
          signal: request.signal,
        },
      );
      return raised.status === "requires_capture" && raised.amount === amount
        ? { accepted: true }
        : unexpected("increment_authorization", raised.status);
    });
  }

  /**
   * The one rule of every modification's answer: Stripe's final word is returned as it is; a
   * refusal of the request itself (a 4xx that is not about the key, the rate or the credentials,
   * or an amount Stripe cannot take) is final and changed nothing; anything else (network, 5xx,
   * 429, a request still running under the same key) is an unknown outcome, asked again later
   * under the same Idempotency-Key.
   */
  async #modify(send: () => Promise<ModificationResult>): Promise<ModificationResult> {
    try {
      return await send();
    } catch (error) {
      if (isRefusal(error)) return { accepted: false, reason: refusalReason(error) };
      throw error;
    }
  }

  /** A refund, keyed and named by Paylink's modification; `amount` undefined: all that is left. */
  async #refund(request: ModificationRequest, paymentIntent: string, amount: number | undefined): Promise<ModificationResult> {
    const refund = await this.#call<Refund>("POST", "/v1/refunds", {
      params: { payment_intent: paymentIntent, amount, metadata: { paylinkReference: request.modificationReference } },
      idempotencyKey: request.modificationReference,
      signal: request.signal,
    });
    const result = refundResult(refund);
    if (result === null) return { accepted: "received", processorReference: refund.id };
    return result.succeeded ? { accepted: true } : { accepted: false, reason: result.reason };
  }

  /** A card call's answer: a card error (402) still names the PaymentIntent it left, which decides. */
  async #cardCall(send: () => Promise<PaymentIntent>): Promise<PaymentIntent> {
    try {
      return await send();
    } catch (error) {
      if (error instanceof StripeApiError && error.status === 402 && error.paymentIntent) return error.paymentIntent;
      throw error;
    }
  }

  #readIntent(id: string): Promise<PaymentIntent> {
    return this.#call<PaymentIntent>("GET", `/v1/payment_intents/${encodeURIComponent(id)}`);
  }

  /**
   * Leaves nothing charged by a PaymentIntent: an authorisation held, or one still waiting for its
   * cardholder, is cancelled (nothing reaches the shopper's statement); a captured one is refunded.
   * Stripe refuses a refund of an uncaptured PaymentIntent and a cancel of a captured one, hence
   * the state read first. A retry after a lost answer finds it cancelled, or repeats the refund
   * under the same key.
   */
  async #voidPaymentIntent(intent: PaymentIntent, key: string): Promise<void> {
    if (intent.status === "canceled") return;
    if (intent.status === "processing") throw new StripeApiError(200, null, `PaymentIntent ${intent.id} is still processing`);
    if (intent.status !== "succeeded") {
      await this.#call("POST", `/v1/payment_intents/${encodeURIComponent(intent.id)}/cancel`, {
        params: { cancellation_reason: "abandoned" },
        idempotencyKey: key,
      });
      return;
    }
    try {
      await this.#call("POST", "/v1/refunds", {
        params: { payment_intent: intent.id, metadata: { cancelReference: key } },
        idempotencyKey: key,
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
      const error = (parsed as { error?: { code?: unknown; message?: unknown; type?: unknown; payment_intent?: unknown } } | null)?.error;
      const intent = error?.payment_intent;
      // Stripe's message names the parameter at fault, never the key (nor a card number: it has none).
      throw new StripeApiError(
        response.status,
        text(error?.code),
        `Stripe refused ${method} ${path} (${response.status}): ${text(error?.message) ?? ""}`,
        text(error?.type),
        intent !== null && typeof intent === "object" && typeof (intent as PaymentIntent).id === "string"
          ? (intent as PaymentIntent)
          : null,
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
  customer?: string | { id?: string } | null;
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
  amount?: number;
  amount_received?: number;
  setup_future_usage?: string | null;
  latest_charge?: string | Charge | null;
  payment_method?: string | PaymentMethod | null;
  metadata?: Record<string, string> | null;
  last_payment_error?: { code?: string | null; decline_code?: string | null; message?: string | null } | null;
  next_action?: { type?: string; redirect_to_url?: { url?: string | null } | null } | null;
}

interface Refund {
  id: string;
  object?: string;
  status?: string | null;
  payment_intent?: string | { id?: string } | null;
  failure_reason?: string | null;
  metadata?: Record<string, string> | null;
}

interface Dispute {
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
  id?: string;
  object?: string;
  type?: string;
  created?: number;
  data?: { object?: { object?: string } };
}

// ── What an event says ──

function sessionNotifications(type: string, session: CheckoutSession): HostedNotification[] {
  const checkoutReference = text(session.client_reference_id);
  if (!checkoutReference) return [];
  switch (type) {
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
      return [];
  }
}

/**
 * A saved-card charge's PaymentIntent after its cardholder authenticated (or did not): decided by
 * services/notified-token-charge.ts. The off-session attempt's own failure (authentication_required)
 * is what sent the shopper to authenticate, not a decline, and decides nothing.
 */
function tokenChargeNotifications(type: string, intent: PaymentIntent): HostedNotification[] {
  const checkoutReference = text(intent.metadata?.checkoutReference);
  if (!checkoutReference || intent.metadata?.[TOKEN_CHARGE_KEY] !== TOKEN_CHARGE_VALUE) return [];
  const payfacReference = checkedReference(intent.id);
  switch (type) {
    case "payment_intent.succeeded":
    case "payment_intent.amount_capturable_updated":
      return [{ checkoutReference, outcome: { kind: "approved", payfacReference, authCode: "", token: null, card: NO_CARD } }];
    case "payment_intent.payment_failed":
      if (needsAuthentication(intent)) return [];
      return [{ checkoutReference, outcome: { kind: "declined", payfacReference, reason: declineReason(intent), card: NO_CARD } }];
    case "payment_intent.canceled":
      return [{ checkoutReference, outcome: { kind: "declined", payfacReference, reason: "Canceled", card: NO_CARD } }];
    default:
      return [];
  }
}

/** A refund's final state (refund.updated, refund.failed, charge.refund.updated…); nothing while it is pending. */
function refundNotifications(refund: Refund): HostedNotification[] {
  const result = refundResult(refund);
  if (result === null) return [];
  return [
    {
      modification: {
        processorReference: refund.id,
        // Paylink's own reference, sent as metadata with the request (#refund).
        paylinkReference: text(refund.metadata?.paylinkReference),
        originalPayfacReference: idOf(refund.payment_intent),
        succeeded: result.succeeded,
        reason: result.reason,
      },
    },
  ];
}

/** Stripe's dispute statuses in Paylink's words; undefined: a status this version does not know. */
const DISPUTE_STATUS: Record<string, DisputeStatus> = {
  warning_needs_response: "Open",
  warning_under_review: "Open",
  needs_response: "Open",
  under_review: "Open",
  won: "Won",
  lost: "Lost",
  // An inquiry closed without becoming a chargeback: no money left the merchant.
  warning_closed: "Won",
  // Resolved before it became a dispute (an alert answered with a refund or a credit): the money stays.
  prevented: "Won",
};

/** A step of a dispute (charge.dispute.*), about the payment Paylink knows by its PaymentIntent. */
function disputeNotifications(event: StripeEvent, dispute: Dispute): HostedNotification[] {
  const status = dispute.status === undefined ? undefined : DISPUTE_STATUS[dispute.status];
  // Paylink knows a Stripe payment by its PaymentIntent; a Charges-API payment (no PaymentIntent) is not Paylink's.
  const payfacReference = idOf(dispute.payment_intent) ?? idOf(dispute.charge);
  const eventReference = text(event.id);
  if (!status || !payfacReference || !eventReference || typeof event.created !== "number") return [];
  const amount =
    typeof dispute.amount === "number" && typeof dispute.currency === "string"
      ? { value: fromStripeAmount(dispute.amount, dispute.currency), currency: dispute.currency.toUpperCase() }
      : null;
  return [
    {
      dispute: {
        disputeReference: dispute.id,
        eventReference,
        payfacReference,
        status,
        processorEvent: event.type ?? "",
        amount,
        reason: text(dispute.reason) ?? "",
        occurredAt: new Date(event.created * 1000),
      },
    },
  ];
}

/** A refund's final word, or null while Stripe has not given it (pending, requires_action). */
function refundResult(refund: Refund): { succeeded: boolean; reason: string } | null {
  if (refund.status === "succeeded") return { succeeded: true, reason: "" };
  if (refund.status === "failed" || refund.status === "canceled") {
    return { succeeded: false, reason: text(refund.failure_reason) ?? (refund.status === "canceled" ? "Canceled" : "Refund failed") };
  }
  return null;
}

// ── What a saved-card charge's PaymentIntent says ──

/** Stripe's answer to an off-session charge the bank wants authenticated (its docs, "authentication_required"). */
function needsAuthentication(intent: PaymentIntent): boolean {
  return intent.status === "requires_payment_method" && intent.last_payment_error?.code === "authentication_required";
}

/** Stripe's decline codes Paylink's merchants already know by the live gateway's words; others as Refused. */
const DECLINE_REASONS: Record<string, string> = {
  insufficient_funds: "Not enough balance",
  expired_card: "Expired Card",
  incorrect_cvc: "CVC Declined",
  authentication_required: "Authentication required",
  payment_intent_authentication_failure: "Authentication failed",
};

function declineReason(intent: PaymentIntent): string {
  const error = intent.last_payment_error;
  return DECLINE_REASONS[error?.decline_code ?? ""] ?? DECLINE_REASONS[error?.code ?? ""] ?? "Refused";
}

function tokenChargeResult(intent: PaymentIntent, request: TokenChargeRequest): TokenChargeResult {
  const redirect = intent.next_action?.redirect_to_url?.url;
  if (intent.status === "requires_action" && typeof redirect === "string" && redirect !== "")
    return { approved: "shopper", redirectUrl: redirect };
  // Stripe reports the card it charged; the saved card's facts stand in for what it leaves out.
  const card = objectOf(intent.latest_charge)?.payment_method_details?.card ?? null;
  const reported = reportedCard(card);
  const facts = {
    cardBrand: reported.brand ?? request.card.brand,
    cardUsage: reported.usage ?? (request.card.usage === "Debit" ? ("Debit" as const) : ("Credit" as const)),
    paymentMethod: reported.brand ?? request.card.brand,
    threeDAuthenticated: false,
  };
  const payfacReference = checkedReference(intent.id);
  if (intent.status === "succeeded" || intent.status === "requires_capture") {
    return { approved: true, payfacReference, authCode: card?.authorization_code ?? "", token: null, ...facts };
  }
  // Declined, or waiting for a cardholder Paylink cannot send (no return address): nothing charged.
  if (intent.status === "requires_payment_method" || intent.status === "canceled" || intent.status === "requires_action") {
    return { approved: false, payfacReference, reason: declineReason(intent), ...facts };
  }
  // processing, requires_confirmation: not an outcome; unknown, so it is reversed.
  throw new StripeApiError(200, null, `Stripe answered a saved-card charge with status ${JSON.stringify(intent.status)}`);
}

function unexpected(call: string, status: string | undefined): never {
  throw new StripeApiError(200, null, `Stripe answered ${call} with status ${JSON.stringify(status)}`);
}

/**
 * An answer that refuses the request for good, so nothing was done: a 4xx other than the
 * credentials refused, "slow down", a time-out and a clash over an Idempotency-Key (the operator
 * may fix those, or the request is still running; it is asked again later), or an amount Stripe
 * cannot take (refused before it was sent).
 */
function isRefusal(error: unknown): error is StripeApiError | StripeAmountError {
  if (error instanceof StripeAmountError) return true;
  return (
    error instanceof StripeApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403, 408, 409, 429].includes(error.status) &&
    error.type !== "idempotency_error"
  );
}

function refusalReason(error: StripeApiError | StripeAmountError): string {
  return error instanceof StripeApiError ? error.message.replace(/^Stripe refused [A-Z]+ \S+ /, "Refused by Stripe ") : error.message;
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
