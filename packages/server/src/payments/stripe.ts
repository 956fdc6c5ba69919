// Stripe as a processor (docs/processors.md#stripe): the shopper pays on a Stripe Checkout page,
// Paylink reads the outcome from the Checkout Session (its status call) or from Stripe's signed
// webhook events, and gives back an approval it cannot sell with a refund or a cancel. After the
// sale, saved cards are charged with off-session PaymentIntents, and refunds, reversals, captures
// and adjustments are Stripe's own calls; their results and disputes come as signed events too.
// Spoken with plain fetch and form encoding (docs/decisions.md#libraries-and-own-code): a dozen
// calls need no SDK. How Stripe's API is spoken is in stripe-api.ts; what its objects say, in
// stripe-events.ts.
import type { Lang } from "../web/i18n.ts";
import type { HostedNotification, HostedOutcome, HostedPaymentProcessor, HostedPaymentRequest, HostedPaymentStart } from "./hosted.ts";
import {
  type AfterSaleProcessor,
  type ModificationRequest,
  type ModificationResult,
  type TokenChargeRequest,
  type TokenChargeResult,
  tokenChargeReversalReference,
} from "./processor.ts";
import type { StripeConfig } from "./processor-config.ts";
import {
  type CheckoutSession,
  type Dispute,
  type FormParams,
  formEncode,
  isRefusal,
  type PaymentIntent,
  type PaymentMethod,
  type Refund,
  refusalReason,
  STRIPE_API_BASE,
  STRIPE_API_VERSION,
  StripeAmountError,
  StripeApiError,
  type StripeEvent,
  toStripeAmount,
  verifyStripeSignature,
} from "./stripe-api.ts";
import {
  disputeNotifications,
  idOf,
  needsAuthentication,
  refundNotifications,
  refundResult,
  sessionNotifications,
  sessionOutcome,
  TOKEN_CHARGE_KEY,
  TOKEN_CHARGE_VALUE,
  text,
  tokenChargeNotifications,
  tokenChargeResult,
} from "./stripe-events.ts";

/**
 * Stripe closes a Checkout Session no sooner than 30 minutes after its creation; Paylink's page
 * holds the sale slot for 15. The session is asked to close at Paylink's time plus this margin
 * for clocks and latency, and is closed at Stripe by Paylink itself (#closeIfPastPaylinksTime).
 */
const STRIPE_MIN_OPEN_SECONDS = 31 * 60;
const CALL_TIMEOUT_MS = 20_000;
/** Paylink's own closing time of the page, in the session's metadata (Stripe's is later, above). */
const CLOSES_AT_KEY = "paylinkClosesAt";

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

function unexpected(call: string, status: string | undefined): never {
  throw new StripeApiError(200, null, `Stripe answered ${call} with status ${JSON.stringify(status)}`);
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
