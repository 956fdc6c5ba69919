// What Adyen tells Paylink, in Paylink's words: its HMAC-signed notification items (checked, then
// read as attempts, modifications and disputes), a session's result and a saved-card charge's
// answer. Pure reading, kept apart from the calls that get them (adyen.ts).
import { createHmac, timingSafeEqual } from "node:crypto";
import { AdyenAmountError, AdyenApiError, adyenToken, fromAdyenAmount } from "./adyen-api.ts";
import type {
  DisputeNotification,
  DisputeStatus,
  HostedNotification,
  HostedOutcome,
  ModificationNotification,
  ReportedCard,
} from "./hosted.ts";
import type { CardUsage, SavedCardFacts, TokenChargeResult } from "./processor.ts";

/** Paylink stores a payfacReference of at most this many characters; Adyen's pspReference has 16. */
export const MAX_PAYFAC_REFERENCE = 64;

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
export function notificationItems(body: unknown): NotificationItem[] | null {
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
export function notificationOf(item: NotificationItem): HostedNotification | null {
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

export interface SessionResult {
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
export function sessionOutcome(result: SessionResult): HostedOutcome {
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

// ── A saved card's charge ──

export interface PaymentAnswer {
  resultCode?: unknown;
  pspReference?: unknown;
  refusalReason?: unknown;
  action?: { type?: unknown; method?: unknown; url?: unknown };
  additionalData?: Record<string, unknown>;
}

/** Adyen's result codes that end a charge unpaid. */
export const REFUSED_RESULTS = new Set(["Refused", "Error", "Cancelled"]);
/** Adyen's result codes that want the shopper (3-D Secure) before it decides. */
export const SHOPPER_RESULTS = new Set(["RedirectShopper", "IdentifyShopper", "ChallengeShopper"]);

/**
 * Adyen's answer to a charge. Only a redirect the shopper can be sent to with a plain link (GET)
 * is a shopper action Paylink can forward; any other answer this version does not know is an
 * unknown outcome, reversed by the caller.
 */
export function tokenChargeResult(answer: PaymentAnswer, card: SavedCardFacts): TokenChargeResult {
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

export function textOf(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
