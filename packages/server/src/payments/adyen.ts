// Adyen as a processor (docs/processors.md#adyen): the shopper pays on Adyen's Hosted Checkout
// page (a Checkout API v71 session in `hosted` mode). Paylink reads the outcome once from the
// session result the shopper's return carries, otherwise from Adyen's HMAC-signed standard
// notifications, and gives back an approval it cannot sell with a reversal. After the sale, saved
// cards are charged with `/payments` (ContAuth) and refunds, reversals, captures and adjustments
// are Adyen's modifications: each is answered "received" and decided by its notification, as the
// live gateway's are (payments/straumur.ts). Spoken with plain fetch
// (docs/decisions.md#libraries-and-own-code): a handful of calls need no SDK.
import { createHmac, timingSafeEqual } from "node:crypto";
import { ISO_4217_EXPONENTS, wireExponent } from "../domain/money/currencies.ts";
import type { Lang } from "../web/i18n.ts";
import type {
  DisputeNotification,
  DisputeStatus,
  HostedNotification,
  HostedOutcome,
  HostedPaymentProcessor,
  HostedPaymentRequest,
  HostedPaymentStart,
  ModificationNotification,
  ReportedCard,
} from "./hosted.ts";
import {
  type AfterSaleProcessor,
  type CardUsage,
  type ModificationRequest,
  type ModificationResult,
  type SavedCardFacts,
  type TokenChargeRequest,
  type TokenChargeResult,
  tokenChargeReversalReference,
} from "./processor.ts";
import type { AdyenConfig } from "./processor-config.ts";

/** The Checkout API version whose shapes this adapter speaks (and the fixtures of its tests copy). */
export const ADYEN_API_VERSION = "v71";
/** The test environment's API base; a configured `baseUrl` replaces it (the part before `/v71`). */
export const ADYEN_TEST_BASE = "https://checkout-test.adyen.com";
const CALL_TIMEOUT_MS = 20_000;
/** Paylink stores a payfacReference of at most this many characters; Adyen's pspReference has 16. */
const MAX_PAYFAC_REFERENCE = 64;

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
function savedCardOf(token: string): { storedPaymentMethodId: string; savedBy: string } {
  const at = token.lastIndexOf(TOKEN_SEPARATOR);
  const storedPaymentMethodId = token.slice(0, at);
  const savedBy = token.slice(at + 1);
  if (at <= 0 || savedBy === "") throw new AdyenUnsendableError("this token was not saved through Adyen by Paylink");
  return { storedPaymentMethodId, savedBy };
}

// ── A saved card's charge ──

interface PaymentAnswer {
  resultCode?: unknown;
  pspReference?: unknown;
  refusalReason?: unknown;
  action?: { type?: unknown; method?: unknown; url?: unknown };
  additionalData?: Record<string, unknown>;
}

/** Adyen's result codes that end a charge unpaid. */
const REFUSED_RESULTS = new Set(["Refused", "Error", "Cancelled"]);
/** Adyen's result codes that want the shopper (3-D Secure) before it decides. */
const SHOPPER_RESULTS = new Set(["RedirectShopper", "IdentifyShopper", "ChallengeShopper"]);

/**
 * Adyen's answer to a charge. Only a redirect the shopper can be sent to with a plain link (GET)
 * is a shopper action Paylink can forward; any other answer this version does not know is an
 * unknown outcome, reversed by the caller.
 */
function tokenChargeResult(answer: PaymentAnswer, card: SavedCardFacts): TokenChargeResult {
  const resultCode = textOf(answer.resultCode) ?? "";
  const pspReference = textOf(answer.pspReference);
  if (SHOPPER_RESULTS.has(resultCode)) {
    const { action } = answer;
    const url = textOf(action?.url);
    if (action?.type === "redirect" && action.method === "GET" && url) return { approved: "shopper", redirectUrl: url };
    throw new AdyenApiError(200, null, `Adyen wants the shopper by a ${textOf(action?.type) ?? "missing"} action Paylink cannot forward`);
  }
  if (!pspReference || pspReference.length > MAX_PAYFAC_REFERENCE) {
    throw new AdyenApiError(200, null, `Adyen answered a charge (${resultCode}) without a usable pspReference`);
  }
  // Adyen names the card only when its account is set to; otherwise what Paylink kept of it stands.
  const data = answer.additionalData ?? {};
  const method = textOf(data.paymentMethod) ?? textOf(data.cardPaymentMethod);
  const brand = method ? brandCode(method) : card.brand || "OT";
  const funding = textOf(data.fundingSource)?.toUpperCase() ?? card.usage?.toUpperCase();
  const cardUsage: CardUsage = funding === "DEBIT" ? "Debit" : "Credit";
  const facts = { cardBrand: brand, cardUsage, paymentMethod: brand, threeDAuthenticated: false };
  if (resultCode === "Authorised")
    return { approved: true, payfacReference: pspReference, authCode: textOf(data.authCode) ?? "", token: null, ...facts };
  if (REFUSED_RESULTS.has(resultCode)) {
    return { approved: false, payfacReference: pspReference, reason: textOf(answer.refusalReason) ?? resultCode, ...facts };
  }
  // Pending, Received, PresentToShopper…: Adyen has not decided, so Paylink does not know.
  throw new AdyenApiError(200, null, `Adyen answered a saved-card charge with resultCode ${JSON.stringify(resultCode)}`);
}

/**
 * An answer that refuses the request for good: a 4xx other than "slow down", a time-out, the
 * credentials refused (the operator may fix those) and a retry of a request still running; the
 * request is asked again later then.
 */
function isRefusal(error: unknown): error is AdyenApiError {
  return (
    error instanceof AdyenApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403, 408, 429].includes(error.status) &&
    !(error.status === 422 && error.code === IDEMPOTENCY_IN_PROGRESS)
  );
}

// ── Notifications ──

interface NotificationItem {
  additionalData?: Record<string, unknown>;
  amount?: { value?: unknown; currency?: unknown };
  eventCode?: unknown;
  eventDate?: unknown;
  merchantAccountCode?: unknown;
  merchantReference?: unknown;
  originalReference?: unknown;
  paymentMethod?: unknown;
  pspReference?: unknown;
  reason?: unknown;
  success?: unknown;
}

/** The items of a standard notification (`{"live":…,"notificationItems":[{"NotificationRequestItem":{…}}]}`); null when it is not one. */
function notificationItems(body: unknown): NotificationItem[] | null {
  if (body === null || typeof body !== "object" || !("notificationItems" in body) || !Array.isArray(body.notificationItems)) return null;
  const items: NotificationItem[] = [];
  for (const wrapper of body.notificationItems as unknown[]) {
    const item =
      wrapper !== null && typeof wrapper === "object" && "NotificationRequestItem" in wrapper ? wrapper.NotificationRequestItem : null;
    if (item === null || typeof item !== "object") return null;
    items.push(item as NotificationItem);
  }
  return items;
}

/**
 * Adyen's HMAC of one notification item: HMAC-SHA256, keyed with the hex-decoded key, of
 * `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`
 * (a missing field empty, nothing escaped), in base64.
 */
export function adyenItemSignature(item: NotificationItem, hexKey: string): string {
  const field = (value: unknown) => (typeof value === "string" || typeof value === "number" ? String(value) : "");
  const signed = [
    field(item.pspReference),
    field(item.originalReference),
    field(item.merchantAccountCode),
    field(item.merchantReference),
    field(item.amount?.value),
    field(item.amount?.currency),
    field(item.eventCode),
    field(item.success),
  ].join(":");
  return createHmac("sha256", Buffer.from(hexKey, "hex")).update(signed, "utf8").digest("base64");
}

/** Whether an item carries its own valid `additionalData.hmacSignature`; compared in constant time. */
export function verifyNotificationItem(item: NotificationItem, hexKey: string): boolean {
  const given = item.additionalData?.hmacSignature;
  if (typeof given !== "string" || !/^[A-Za-z0-9+/]{43}=$/.test(given)) return false;
  const expected = Buffer.from(adyenItemSignature(item, hexKey), "base64");
  return timingSafeEqual(Buffer.from(given, "base64"), expected);
}

/** What one item says: about a payment attempt (AUTHORISATION), a modification's result, or a dispute; null for any other event. */
function notificationOf(item: NotificationItem): HostedNotification | null {
  const eventCode = textOf(item.eventCode) ?? "";
  if (eventCode === "AUTHORISATION") return attemptNotification(item);
  const modification = MODIFICATION_EVENTS[eventCode];
  if (modification) return modificationNotification(item, modification);
  const dispute = DISPUTE_EVENTS[eventCode];
  if (dispute) return disputeNotification(item, eventCode, dispute);
  return null;
}

/**
 * What an AUTHORISATION says about a payment attempt or a saved-card charge (its merchantReference
 * is either's checkoutReference, the `reference` Paylink sent).
 */
function attemptNotification(item: NotificationItem): HostedNotification | null {
  const checkoutReference = textOf(item.merchantReference);
  const pspReference = textOf(item.pspReference);
  if (!checkoutReference || !pspReference || pspReference.length > MAX_PAYFAC_REFERENCE) return null;
  const data = item.additionalData ?? {};
  const card = reportedCard(item, data);
  if (item.success !== "true") {
    return {
      checkoutReference,
      outcome: { kind: "declined", payfacReference: pspReference, reason: textOf(item.reason) ?? "Refused", card },
    };
  }
  const stored = textOf(data["tokenization.storedPaymentMethodId"]) ?? textOf(data["recurring.recurringDetailReference"]);
  const token = stored ? adyenToken(stored, checkoutReference) : null;
  return {
    checkoutReference,
    outcome: { kind: "approved", payfacReference: pspReference, authCode: textOf(data.authCode) ?? "", token, card },
  };
}

/**
 * The modification events, and whether each reports a modification's result or says that one
 * reported done has failed after all (a refund the card's bank sent back, a capture that did not
 * go through): the latter is a failure whatever its `success` says (Adyen sends "true": the event
 * happened).
 */
const MODIFICATION_EVENTS: Readonly<Record<string, "result" | "failed-after-all">> = {
  REFUND: "result",
  CAPTURE: "result",
  CANCEL_OR_REFUND: "result",
  CANCELLATION: "result",
  AUTHORISATION_ADJUSTMENT: "result",
  REFUND_FAILED: "failed-after-all",
  REFUNDED_REVERSED: "failed-after-all",
  CAPTURE_FAILED: "failed-after-all",
};

/**
 * A modification's result. Adyen echoes the modification's `reference` (Paylink's own reference
 * of it) as merchantReference; one made in Adyen's Customer Area carries the payment's instead,
 * which names none of Paylink's modifications.
 */
function modificationNotification(item: NotificationItem, kind: "result" | "failed-after-all"): ModificationNotification | null {
  const processorReference = textOf(item.pspReference);
  if (!processorReference || processorReference.length > MAX_PAYFAC_REFERENCE) return null;
  const succeeded = kind === "result" && item.success === "true";
  return {
    modification: {
      processorReference,
      paylinkReference: textOf(item.merchantReference),
      originalPayfacReference: textOf(item.originalReference),
      succeeded,
      reason: succeeded ? "" : (textOf(item.reason) ?? textOf(item.eventCode) ?? "Refused"),
    },
  };
}

/**
 * Where each of Adyen's dispute events leaves the dispute (Adyen's "Dispute webhooks" page): a
 * notice or request the merchant may answer is Open; the chargeback reversed or pre-arbitration
 * won is Won; a second chargeback, pre-arbitration lost or the defence period over undefended is
 * Lost. A Notification of Fraud is not a dispute yet (no money moved), but the merchant may act on
 * it (refund before a chargeback), so it shows as Open. The item's `disputeStatus`, when given,
 * says Won or Lost more exactly and wins (a CHARGEBACK accepted is Lost).
 */
const DISPUTE_EVENTS: Readonly<Record<string, DisputeStatus>> = {
  NOTIFICATION_OF_FRAUD: "Open",
  REQUEST_FOR_INFORMATION: "Open",
  NOTIFICATION_OF_CHARGEBACK: "Open",
  CHARGEBACK: "Open",
  INFORMATION_SUPPLIED: "Open",
  CHARGEBACK_REVERSED: "Won",
  PREARBITRATION_WON: "Won",
  SECOND_CHARGEBACK: "Lost",
  PREARBITRATION_LOST: "Lost",
  DISPUTE_DEFENSE_PERIOD_ENDED: "Lost",
};

const DISPUTE_STATUS_OVERRIDES: Readonly<Record<string, DisputeStatus>> = { Won: "Won", Lost: "Lost", Accepted: "Lost" };

/**
 * A step of a dispute. Adyen gives every event of one dispute the same pspReference (the
 * dispute's), and the disputed payment's as originalReference; an item without the latter (Adyen
 * sends it on some events only when "include originalReference" is enabled) cannot be placed on a
 * payment and is left out.
 */
function disputeNotification(item: NotificationItem, eventCode: string, byEvent: DisputeStatus): DisputeNotification | null {
  const disputeReference = textOf(item.pspReference);
  const payfacReference = textOf(item.originalReference);
  if (!disputeReference || !payfacReference || payfacReference.length > MAX_PAYFAC_REFERENCE) return null;
  const data = item.additionalData ?? {};
  const eventDate = textOf(item.eventDate);
  const parsedDate = eventDate ? new Date(eventDate) : null;
  // Adyen always dates its events; one it did not is placed when it arrives.
  const occurredAt = parsedDate && !Number.isNaN(parsedDate.getTime()) ? parsedDate : new Date();
  const code = (textOf(data.chargebackReasonCode) ?? textOf(data.nofReasonCode) ?? textOf(data.rfiReasonCode))?.trim() ?? "";
  const text = textOf(item.reason) ?? "";
  return {
    dispute: {
      disputeReference,
      // The same step sent again has the same three; each step of the dispute differs in one.
      eventReference: `${disputeReference}:${eventCode}:${eventDate ?? ""}`,
      payfacReference,
      status: DISPUTE_STATUS_OVERRIDES[textOf(data.disputeStatus) ?? ""] ?? byEvent,
      processorEvent: eventCode,
      amount: disputedAmount(item.amount),
      reason: (code && !text.startsWith(code) ? [code, text].filter(Boolean).join(": ") : text || code).slice(0, 500),
      occurredAt,
    },
  };
}

/** The item's amount in Paylink's minor units; null when absent or not exactly Paylink's. */
function disputedAmount(amount: NotificationItem["amount"]): { value: number; currency: string } | null {
  const currency = textOf(amount?.currency);
  const value = amount?.value;
  if (!currency || typeof value !== "number") return null;
  try {
    return { value: fromAdyenAmount(value, currency), currency: currency.toUpperCase() };
  } catch (error) {
    if (error instanceof AdyenAmountError) return null;
    throw error;
  }
}

// ── What a session result says ──

interface CheckoutSession {
  id?: unknown;
  url?: unknown;
}

interface SessionResult {
  id?: string;
  reference?: string;
  status?: string;
  payments?: Array<{ pspReference?: string; resultCode?: string; paymentMethod?: { brand?: string; type?: string } }>;
}

/**
 * A session result's outcome. `completed` is an authorised payment; its pspReference decides the
 * sale, and without one the AUTHORISATION notification will. A refused, canceled or expired
 * session takes no more payments: the page closed unpaid (each refused card was notified on its own).
 */
function sessionOutcome(result: SessionResult): HostedOutcome {
  switch (result.status) {
    case "completed": {
      const payment = result.payments?.find((candidate) => candidate.resultCode === "Authorised" && textOf(candidate.pspReference));
      const pspReference = payment?.pspReference;
      if (!payment || !pspReference || pspReference.length > MAX_PAYFAC_REFERENCE) return { kind: "open" };
      const brand = payment.paymentMethod?.brand ?? payment.paymentMethod?.type ?? null;
      return {
        kind: "approved",
        payfacReference: pspReference,
        // The session result names neither the authorisation code nor the saved card; the notification does.
        authCode: "",
        token: null,
        card: { ...NO_CARD, brand: brand ? brandCode(brand) : null },
      };
    }
    case "refused":
    case "canceled":
    case "expired":
      return { kind: "expired" };
    default:
      // active, paymentPending, or a status this version does not know: not decided yet.
      return { kind: "open" };
  }
}

// ── Cards ──

/** Adyen's payment method names (`visa`, `mc`, `amexcommercial`, …) → Paylink's two-letter brand codes. */
function brandCode(method: string): string {
  const name = method.toLowerCase();
  const prefixes: Array<[string, string]> = [
    ["visa", "VI"],
    ["mc", "MC"],
    ["amex", "AX"],
    ["discover", "DI"],
    ["jcb", "JC"],
    ["diners", "DC"],
    ["cup", "UP"],
  ];
  return prefixes.find(([prefix]) => name.startsWith(prefix))?.[1] ?? "OT";
}

function reportedCard(item: NotificationItem, data: Record<string, unknown>): ReportedCard {
  const method = textOf(item.paymentMethod);
  const funding = textOf(data.fundingSource)?.toUpperCase();
  const usage: CardUsage | null = funding === "DEBIT" ? "Debit" : funding === "CREDIT" ? "Credit" : null;
  const last4 = textOf(data.cardSummary);
  // Adyen writes `3/2030` or `03/2030`; Paylink keeps `MM/YYYY`.
  const expiry = /^(\d{1,2})\/(\d{4})$/.exec(textOf(data.expiryDate) ?? "");
  return {
    brand: method ? brandCode(method) : null,
    usage,
    // The first six are Adyen's to show (cardBin only when enabled), not enough for a masked number.
    masked: null,
    last4: last4 && /^\d{4}$/.test(last4) ? last4 : null,
    expiry: expiry ? `${expiry[1]!.padStart(2, "0")}/${expiry[2]}` : null,
  };
}

const NO_CARD: ReportedCard = { brand: null, usage: null, masked: null, last4: null, expiry: null };

function textOf(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
