// Adyen as a processor (docs/processors.md#adyen): the shopper pays on Adyen's Hosted Checkout
// page (a Checkout API v71 session in `hosted` mode). Paylink reads the outcome once from the
// session result the shopper's return carries, otherwise from Adyen's HMAC-signed standard
// notifications, and gives back an approval it cannot sell with a reversal. After the sale, saved
// cards are charged with `/payments` (ContAuth) and refunds, reversals, captures and adjustments
// are Adyen's modifications: each is answered "received" and decided by its notification, as the
// live gateway's are (payments/straumur.ts). Spoken with plain fetch
// (docs/decisions.md#libraries-and-own-code): a handful of calls need no SDK. How Adyen's API is
// spoken is in adyen-api.ts; what its notifications and answers say, in adyen-notifications.ts.
import type { Lang } from "../web/i18n.ts";
import {
  ADYEN_API_VERSION,
  ADYEN_TEST_BASE,
  AdyenAmountError,
  AdyenApiError,
  AdyenUnsendableError,
  adyenLiveBase,
  adyenShopperReference,
  isRefusal,
  savedCardOf,
  toAdyenAmount,
} from "./adyen-api.ts";
import {
  MAX_PAYFAC_REFERENCE,
  notificationItems,
  notificationOf,
  type PaymentAnswer,
  REFUSED_RESULTS,
  type SessionResult,
  SHOPPER_RESULTS,
  sessionOutcome,
  textOf,
  tokenChargeResult,
  verifyNotificationItem,
} from "./adyen-notifications.ts";
import type { HostedNotification, HostedOutcome, HostedPaymentProcessor, HostedPaymentRequest, HostedPaymentStart } from "./hosted.ts";
import {
  type AfterSaleProcessor,
  type ModificationRequest,
  type ModificationResult,
  type TokenChargeRequest,
  type TokenChargeResult,
  tokenChargeReversalReference,
} from "./processor.ts";
import type { AdyenConfig } from "./processor-config.ts";

const CALL_TIMEOUT_MS = 20_000;

export class AdyenProcessor implements HostedPaymentProcessor, AfterSaleProcessor {
  readonly type = "adyen";
  /** Adyen stops resending a notification once it is answered with exactly this. */
  readonly notificationAnswer = { contentType: "text/plain; charset=utf-8", body: "[accepted]" };
  readonly #fetch: typeof globalThis.fetch;

  constructor(
    private readonly config: AdyenConfig,
    options: { fetch?: typeof globalThis.fetch } = {},
  ) {
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async startHostedPayment(request: HostedPaymentRequest): Promise<HostedPaymentStart> {
    const tokenize = request.kind === "tokenization";
    const body: Record<string, unknown> = {
      mode: "hosted",
      merchantAccount: this.config.merchantAccount,
      // Tokenization is Adyen's zero-value authorisation: the card is checked and saved, nothing charged.
      amount: { value: tokenize ? 0 : toAdyenAmount(request.amount, request.currency), currency: request.currency },
      reference: request.checkoutReference,
      returnUrl: request.returnUrl,
      expiresAt: request.expiresAt.toISOString(),
      shopperLocale: adyenLocale(request.culture),
      ...(tokenize ? {} : { lineItems: lineItems(request) }),
      ...(tokenize ? {} : captureFields(request.capture)),
    };
    if (request.saveCard || tokenize) {
      Object.assign(body, {
        storePaymentMethodMode: "enabled",
        recurringProcessingModel: request.recurringProcessingModel ?? "CardOnFile",
        shopperInteraction: "Ecommerce",
        shopperReference: adyenShopperReference(request.checkoutReference),
      });
    }
    const session = await this.#call<CheckoutSession>("POST", "/sessions", { body, idempotencyKey: request.checkoutReference });
    if (typeof session.url !== "string" || typeof session.id !== "string") {
      throw new AdyenApiError(201, null, "Adyen answered a session without its id or url");
    }
    return { redirectUrl: session.url, processorReference: session.id };
  }

  /**
   * Adyen tells a session's result only to whoever has the `sessionResult` its page appended to
   * the shopper's return address; the sweep (no return query) has none, and the notification
   * decides (until the page's time is over, when Paylink closes the attempt itself). The query
   * supplies that one value only: the session asked about is the attempt's own, and what Adyen
   * answers decides.
   */
  async readOutcome(attempt: {
    checkoutReference: string;
    processorReference: string;
    signal?: AbortSignal;
    returnQuery?: URLSearchParams;
  }): Promise<HostedOutcome> {
    const sessionResult = attempt.returnQuery?.get("sessionResult");
    if (!sessionResult) return { kind: "open" };
    const result = await this.#call<SessionResult>("GET", `/sessions/${encodeURIComponent(attempt.processorReference)}`, {
      query: { sessionResult },
      signal: attempt.signal,
    });
    if (result.id !== attempt.processorReference || (result.reference !== undefined && result.reference !== attempt.checkoutReference)) {
      throw new AdyenApiError(200, null, "Adyen's session result is not the attempt's");
    }
    return sessionOutcome(result);
  }

  parseNotification(_headers: Record<string, string | string[] | undefined>, rawBody: string): HostedNotification[] | null {
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return null;
    }
    const items = notificationItems(body);
    if (items === null) return null;
    // Every item is checked before any is read: one forged item refuses the whole delivery.
    for (const item of items) if (!verifyNotificationItem(item, this.config.hmacKey)) return null;
    const notifications: HostedNotification[] = [];
    for (const item of items) {
      // A company-level webhook carries every merchant account's events; this terminal's are its account's.
      if (item.merchantAccountCode !== this.config.merchantAccount) continue;
      const notification = notificationOf(item);
      if (notification) notifications.push(notification);
    }
    return notifications;
  }

  async cancelApproval(payfacReference: string, cancelReference: string): Promise<void> {
    // A reversal cancels an authorisation not yet captured and refunds a captured one; Adyen
    // answers "received", and that is all Paylink waits for: its CANCEL_OR_REFUND notification
    // names no refund of Paylink's and is acknowledged as such.
    const result = await this.#modify("reversals", { originalPayfacReference: payfacReference, modificationReference: cancelReference });
    if (result.accepted !== "received") throw new AdyenApiError(422, null, `Adyen refused the reversal of ${payfacReference}`);
  }

  // ── After the sale: saved-card charges and modifications ──

  async chargeToken(request: TokenChargeRequest): Promise<TokenChargeResult> {
    return tokenChargeResult(await this.#sendCharge(request), request.card);
  }

  /**
   * Adyen finds a payment by its pspReference only. Its Idempotency-Key answers a request sent
   * again with the same key with what the first one answered (or, if Adyen never saw it, charges
   * now), so the charge is sent again exactly as it was, and an approval it names is reversed:
   * either way nothing stays charged.
   */
  async reverseCharge(checkoutReference: string, charge?: Omit<TokenChargeRequest, "signal">): Promise<void> {
    if (!charge) throw new Error(`Adyen cannot find the charge ${checkoutReference} without its request`);
    const answer = await this.#sendCharge({ ...charge, checkoutReference }).catch((error: unknown) => {
      // Never sent, or refused by Adyen as a request (an unknown stored card, say): nothing was charged.
      if (error instanceof AdyenUnsendableError || isRefusal(error)) return undefined;
      throw error;
    });
    if (answer === undefined) return;
    const result = textOf(answer.resultCode);
    // Refused: nothing charged. Waiting for the shopper: nothing charged yet, and an approval
    // notified later for a charge Paylink gave up on is reversed then (services/notified-token-charge.ts).
    if (result && (REFUSED_RESULTS.has(result) || SHOPPER_RESULTS.has(result))) return;
    // Authorised, or pending at Adyen (Received, Pending…): reversed by the payment's reference.
    const pspReference = textOf(answer.pspReference);
    if (!pspReference) throw new AdyenApiError(200, null, `Adyen answered the charge ${checkoutReference} without its pspReference`);
    await this.cancelApproval(pspReference, tokenChargeReversalReference(checkoutReference));
  }

  refund(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify("refunds", request, { withAmount: true });
  }

  cancelOrRefund(request: ModificationRequest): Promise<ModificationResult> {
    // Adyen's reversal cancels an authorisation not yet captured and refunds a captured payment
    // (whatever of it is not refunded yet): Paylink's reverse, with no amount of its own.
    return this.#modify("reversals", request);
  }

  capture(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify("captures", request, { withAmount: true });
  }

  adjustAuthorisation(request: ModificationRequest): Promise<ModificationResult> {
    // Adyen's amount update sets the authorisation's new total, as Paylink's adjustment does.
    return this.#modify("amountUpdates", request, { withAmount: true });
  }

  /** A saved card's charge: `/payments` with the stored method, keyed by the payment's checkoutReference. */
  #sendCharge(request: Omit<TokenChargeRequest, "signal"> & { signal?: AbortSignal }): Promise<PaymentAnswer> {
    const saved = savedCardOf(request.token);
    // Adyen's /payments requires a return address even for a charge the shopper is not at: the
    // merchant's, or Paylink's page that says the authentication is done (services/shopper-authentication.ts).
    const body = {
      merchantAccount: this.config.merchantAccount,
      amount: { value: toAdyenAmount(request.amount, request.currency), currency: request.currency },
      // Adyen's reference is Paylink's payment: its AUTHORISATION notification names the charge by it.
      reference: request.checkoutReference,
      paymentMethod: { type: "scheme", storedPaymentMethodId: saved.storedPaymentMethodId },
      shopperReference: adyenShopperReference(saved.savedBy),
      // A card on file charged without the shopper typing it: Adyen's "continuous authority".
      shopperInteraction: "ContAuth",
      recurringProcessingModel: request.recurringProcessingModel ?? "CardOnFile",
      returnUrl: request.returnUrl,
    };
    return this.#call<PaymentAnswer>("POST", "/payments", { body, idempotencyKey: request.checkoutReference, signal: request.signal });
  }

  /**
   * One modification of a payment (`/payments/{pspReference}/{kind}`), keyed by Paylink's
   * reference of it, which Adyen also echoes as the notification's merchantReference. Adyen
   * answers "received" with its own reference of the modification; the notification brings the
   * result. A refusal it states at once (the request itself at fault) is final; anything else
   * (network, 5xx, 401/403, 429, a retry still running) is an unknown outcome, asked again later
   * under the same key.
   */
  async #modify(
    kind: "refunds" | "reversals" | "captures" | "amountUpdates",
    request: Pick<ModificationRequest, "modificationReference" | "originalPayfacReference" | "signal"> &
      Partial<Pick<ModificationRequest, "amount" | "currency">>,
    options: { withAmount?: boolean } = {},
  ): Promise<ModificationResult> {
    try {
      const body: Record<string, unknown> = { merchantAccount: this.config.merchantAccount, reference: request.modificationReference };
      if (options.withAmount) {
        if (request.amount === undefined || request.currency === undefined) throw new AdyenUnsendableError(`${kind} needs an amount`);
        body.amount = { value: toAdyenAmount(request.amount, request.currency), currency: request.currency };
      }
      const answer = await this.#call<{ status?: unknown; pspReference?: unknown }>(
        "POST",
        `/payments/${encodeURIComponent(request.originalPayfacReference)}/${kind}`,
        { body, idempotencyKey: request.modificationReference, signal: request.signal },
      );
      const processorReference = textOf(answer.pspReference);
      if (answer.status !== "received" || !processorReference || processorReference.length > MAX_PAYFAC_REFERENCE) {
        throw new AdyenApiError(201, null, `Adyen did not confirm the ${kind} as received`);
      }
      return { accepted: "received", processorReference };
    } catch (error) {
      // An amount Adyen cannot take exactly is refused for good, before Adyen is asked.
      if (error instanceof AdyenAmountError) return { accepted: false, reason: "Amount not valid for Adyen" };
      if (isRefusal(error)) return { accepted: false, reason: error.adyenMessage ?? `Refused by Adyen (${error.status})` };
      throw error;
    }
  }

  async #call<T>(
    method: "GET" | "POST",
    path: string,
    options: { body?: object; query?: Record<string, string>; idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const base = this.#base();
    const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : "";
    const headers: Record<string, string> = { "x-api-key": this.config.apiKey, accept: "application/json" };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    if (options.body) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
    const response = await this.#fetch(`${base}/${ADYEN_API_VERSION}${path}${query}`, {
      method,
      headers,
      body: options.body ? JSON.stringify(options.body) : undefined,
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AdyenApiError(response.status, null, `Adyen answered ${method} ${path} with ${response.status} and no JSON`);
    }
    if (!response.ok) {
      const error = parsed as { errorCode?: unknown; message?: unknown } | null;
      // Adyen's message names the field at fault, never the key.
      throw new AdyenApiError(
        response.status,
        textOf(error?.errorCode),
        `Adyen refused ${method} ${path} (${response.status}): ${textOf(error?.message) ?? ""}`,
        textOf(error?.message),
      );
    }
    return parsed as T;
  }

  #base(): string {
    const { baseUrl, environment, liveEndpointUrlPrefix } = this.config;
    if (baseUrl) return baseUrl.replace(/\/+$/, "");
    if (environment === "test") return ADYEN_TEST_BASE;
    // The admin API refuses a live configuration without its prefix; a stored one never lacks it.
    if (!liveEndpointUrlPrefix) throw new AdyenApiError(0, null, "a live Adyen terminal needs its liveEndpointUrlPrefix");
    return adyenLiveBase(liveEndpointUrlPrefix);
  }
}

/**
 * The page's lines: the link's items when they add up exactly (each line's unit price times its
 * quantity, all lines the amount), otherwise one line of the whole amount. Adyen charges the
 * session's `amount` whatever the lines say; they are what the page and the invoice show.
 */
function lineItems(
  request: HostedPaymentRequest,
): Array<{ id?: string; description: string; quantity: number; amountIncludingTax: number }> {
  const { items } = request;
  const exact =
    items.length > 0 &&
    items.every((item) => Number.isInteger(item.quantity) && item.quantity > 0 && item.unitPrice * item.quantity === item.amount) &&
    items.reduce((sum, item) => sum + item.amount, 0) === request.amount;
  if (exact) {
    try {
      return items.map((item, index) => ({
        id: String(index + 1),
        description: item.name || fallbackName(request.culture),
        quantity: item.quantity,
        amountIncludingTax: toAdyenAmount(item.unitPrice, request.currency),
      }));
    } catch (error) {
      if (!(error instanceof AdyenAmountError)) throw error;
    }
  }
  const names = items
    .map((item) => item.name)
    .filter(Boolean)
    .join(", ")
    .slice(0, 250);
  return [
    {
      description: names || fallbackName(request.culture),
      quantity: 1,
      amountIncludingTax: toAdyenAmount(request.amount, request.currency),
    },
  ];
}

/**
 * A session's later capture in Adyen's fields: manual capture and pre-authorisation are
 * `additionalData` flags (its "Manual capture" and "Adjust authorisation" pages); a delayed
 * automatic capture is `captureDelayHours`, which manual capture overrides.
 */
function captureFields(capture: HostedPaymentRequest["capture"]): Record<string, unknown> {
  if (!capture) return {};
  const additionalData: Record<string, string> = {};
  if (capture.manual) additionalData.manualCapture = "true";
  if (capture.preAuth) additionalData.authorisationType = "PreAuth";
  return {
    ...(Object.keys(additionalData).length > 0 ? { additionalData } : {}),
    ...(!capture.manual && capture.hoursDelay !== null ? { captureDelayHours: capture.hoursDelay } : {}),
  };
}

function fallbackName(lang: Lang): string {
  return lang === "is" ? "Greiðsla" : "Payment";
}

/** Adyen's page language: language and country, as Adyen spells its locales. */
function adyenLocale(lang: Lang): string {
  return lang === "is" ? "is-IS" : "en-US";
}

interface CheckoutSession {
  id?: unknown;
  url?: unknown;
}
