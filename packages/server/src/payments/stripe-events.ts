// What Stripe's objects say in Paylink's words: a Checkout Session's outcome, an event's
// notifications (sessions, saved-card charges, refunds, disputes) and a saved-card charge's result.
// Pure reading, kept apart from the calls that fetch the objects (stripe.ts).
import type { DisputeStatus, HostedNotification, HostedOutcome, ReportedCard } from "./hosted.ts";
import type { CardUsage, TokenChargeRequest, TokenChargeResult } from "./processor.ts";
import {
  type CheckoutSession,
  type Dispute,
  fromStripeAmount,
  type PaymentIntent,
  type Refund,
  StripeApiError,
  type StripeCard,
  type StripeEvent,
} from "./stripe-api.ts";

/** Paylink stores a payfacReference of at most this many characters (GET /payments/{ref} looks up no longer ones). */
const MAX_PAYFAC_REFERENCE = 64;
/**
 * Marks a PaymentIntent as a saved-card charge of Paylink's (besides its checkoutReference, which
 * Checkout's PaymentIntents carry too): only those are decided by payment_intent.* events, a
 * Checkout payment is decided by its session's events.
 */
export const TOKEN_CHARGE_KEY = "paylinkCharge";
export const TOKEN_CHARGE_VALUE = "saved-card";

// ── What an event says ──

export function sessionNotifications(type: string, session: CheckoutSession): HostedNotification[] {
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
export function tokenChargeNotifications(type: string, intent: PaymentIntent): HostedNotification[] {
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
export function refundNotifications(refund: Refund): HostedNotification[] {
  const result = refundResult(refund);
  if (result === null) return [];
  return [
    {
      modification: {
        processorReference: refund.id,
        // Paylink's own reference, sent as metadata with the request (StripeProcessor's #refund).
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
export function disputeNotifications(event: StripeEvent, dispute: Dispute): HostedNotification[] {
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
export function refundResult(refund: Refund): { succeeded: boolean; reason: string } | null {
  if (refund.status === "succeeded") return { succeeded: true, reason: "" };
  if (refund.status === "failed" || refund.status === "canceled") {
    return { succeeded: false, reason: text(refund.failure_reason) ?? (refund.status === "canceled" ? "Canceled" : "Refund failed") };
  }
  return null;
}

// ── What a saved-card charge's PaymentIntent says ──

/** Stripe's answer to an off-session charge the bank wants authenticated (its docs, "authentication_required"). */
export function needsAuthentication(intent: PaymentIntent): boolean {
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

export function tokenChargeResult(intent: PaymentIntent, request: TokenChargeRequest): TokenChargeResult {
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

// ── What a session says ──

/**
 * The outcome a Checkout Session states. In a webhook event its PaymentIntent and SetupIntent are
 * ids only: the approval is known but not the card or the saved card's token, which the status
 * call (expanded) then adds; an approval that waits for a token decides nothing until it has it.
 */
export function sessionOutcome(session: CheckoutSession): HostedOutcome {
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

export function idOf(value: string | { id?: unknown } | null | undefined): string | null {
  if (typeof value === "string") return value || null;
  return text(value?.id);
}

function objectOf<T extends object>(value: string | T | null | undefined): T | null {
  return value !== null && typeof value === "object" ? value : null;
}

export function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
