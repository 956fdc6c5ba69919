// Adyen as a processor (docs/processors.md#adyen): the shopper pays on Adyen's Hosted Checkout
// page (a Checkout API v71 session in `hosted` mode). Paylink reads the outcome once from the
// session result the shopper's return carries, otherwise from Adyen's HMAC-signed standard
// notifications, and gives back an approval it cannot sell with a reversal. Spoken with plain
// fetch (docs/decisions.md#libraries-and-own-code): three calls need no SDK.
import { createHmac, timingSafeEqual } from "node:crypto";
import { ISO_4217_EXPONENTS, wireExponent } from "../domain/money/currencies.ts";
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
  ) {
    super(message);
  }
}

/** An amount Adyen cannot take exactly in its currency's minor units: refused rather than rounded. */
export class AdyenAmountError extends Error {
  override readonly name = "AdyenAmountError";
}

export class AdyenProcessor implements HostedPaymentProcessor {
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
    // A session's later capture has no equivalent here: Paylink refuses such sessions on Adyen
    // terminals before they reach the page (domain/processors/supported.ts).
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
      const notification = attemptNotification(item);
      if (notification) notifications.push(notification);
    }
    return notifications;
  }

  async cancelApproval(payfacReference: string, cancelReference: string): Promise<void> {
    // A reversal cancels an authorisation not yet captured and refunds a captured one; Adyen
    // answers "received" and its CANCEL_OR_REFUND notification brings the result.
    const answer = await this.#call<{ status?: string }>("POST", `/payments/${encodeURIComponent(payfacReference)}/reversals`, {
      body: { merchantAccount: this.config.merchantAccount, reference: cancelReference },
      idempotencyKey: cancelReference,
    });
    if (answer.status !== "received") throw new AdyenApiError(201, null, "Adyen did not confirm the reversal as received");
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

// ── Notifications ──

interface NotificationItem {
  additionalData?: Record<string, unknown>;
  amount?: { value?: unknown; currency?: unknown };
  eventCode?: unknown;
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

/**
 * What an item says about a payment attempt. Only AUTHORISATION decides anything in this version:
 * the one modification Paylink asks of Adyen is the reversal of an approval it could not sell,
 * which is done once Adyen answers "received" and waits on no result, and refunds, captures and
 * disputes through Adyen are not Paylink's yet (docs/processors.md#what-is-not-done-yet).
 */
function attemptNotification(item: NotificationItem): HostedNotification | null {
  if (item.eventCode !== "AUTHORISATION") return null;
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
  const token = textOf(data["tokenization.storedPaymentMethodId"]) ?? textOf(data["recurring.recurringDetailReference"]);
  return {
    checkoutReference,
    outcome: { kind: "approved", payfacReference: pspReference, authCode: textOf(data.authCode) ?? "", token, card },
  };
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
