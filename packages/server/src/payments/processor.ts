// The payment processor as Paylink sees it. The checkout calls it outside any database
// transaction, once per submission; the built-in sandbox implements it deterministically, and a
// real acquirer integration implements the same interface.
import type { RecurringProcessingModel } from "../domain/links/types.ts";

export interface CardDetails {
  /** Digits only, Luhn-valid, 12–19 long. Never stored, never logged. */
  number: string;
  expiryMonth: number;
  /** Four digits. */
  expiryYear: number;
  /** 3–4 digits. Never stored, never logged. */
  cvc: string;
  holder: string;
}

export interface AuthorizeRequest {
  /** `payment` charges `amount`; `tokenization` only saves the card (amount 0). */
  kind: "payment" | "tokenization";
  /** Minor units, as on the wire. */
  amount: number;
  currency: string;
  card: CardDetails;
  /** Ask for a token for later payments (tokenize links, and pay links with a model). */
  saveCard: boolean;
  recurringProcessingModel: RecurringProcessingModel | null;
  /** The submission id (checkoutReference): the processor's idempotency key for this attempt. */
  checkoutReference: string;
  /** The payment-link reference. */
  merchantReference: string;
  /** Aborted when Paylink stops waiting; the processor should give up then. */
  signal?: AbortSignal;
}

export type CardUsage = "Debit" | "Credit";

interface CardFacts {
  /** Two-letter brand code: `VI`, `MC`… */
  cardBrand: string;
  cardUsage: CardUsage;
  /** `VI`, `MC`… (the brand code): additionalData.paymentMethod of the webhook. */
  paymentMethod: string;
  threeDAuthenticated: boolean;
}

export interface Approval extends CardFacts {
  approved: true;
  /** 16 uppercase letters/digits. */
  payfacReference: string;
  /** 6 digits. */
  authCode: string;
  /** 16 uppercase letters/digits when a card was saved, otherwise null. */
  token: string | null;
}

export interface Decline extends CardFacts {
  approved: false;
  payfacReference: string;
  /** Shown to the shopper and sent to the merchant: `Refused`, `Expired Card`, `CVC Declined`… */
  reason: string;
}

export type AuthorizeResult = Approval | Decline;

/**
 * A real processor wants the shopper (3-D Secure) before it decides a saved-card charge: the
 * shopper goes to `redirectUrl`, and the processor's notification brings the result.
 */
export interface ShopperAction {
  approved: "shopper";
  redirectUrl: string;
}

export type TokenChargeResult = AuthorizeResult | ShopperAction;

export interface PaymentProcessor {
  readonly name: string;
  /**
   * Resolves with an approval or a decline; rejects only when the outcome is unknown (network,
   * timeout). Never approves a checkoutReference that `reverseAttempt` was called for, whenever
   * the request arrives or completes (see reverseAttempt).
   */
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  /**
   * Voids an approval Paylink could not turn into a sale (the link sold out while the card was
   * being charged). Must be safe to call twice.
   */
  cancel(payfacReference: string): Promise<void>;
  /**
   * Undoes whatever `authorize` did for this checkoutReference when Paylink never learnt the
   * outcome (a lost reply, a timeout, a crash before the result was written): voids an approval,
   * drops a saved card. Resolves once the processor confirms nothing stays charged — also when
   * there was nothing to undo. Rejects when it cannot confirm; Paylink tries again later.
   * Must be safe to call any number of times.
   *
   * A reversed checkoutReference is never authorised afterwards: an `authorize` for it that is
   * still under way (its reply late or lost, its abort signal ignored) or that arrives later must
   * end declined or voided, never as a charge. Paylink tells the shopper "not charged" and frees
   * the sale slot on the strength of this promise, so an integration must keep it by the
   * processor's own means (its idempotency on checkoutReference), not by Paylink's abort signal.
   */
  reverseAttempt(checkoutReference: string): Promise<void>;
}

// ── After the sale: saved-card charges, refunds, reversals (docs/api.md#saved-cards-and-refunds) ──
// A separate interface, so a processor that only serves the checkout page (and the tests' stand-ins
// for one) keeps compiling; the sandbox and a real acquirer integration implement both.

/**
 * What Paylink kept of a saved card (never the number): passed with every token charge. A real
 * acquirer charges the token from its own vault and may ignore these; the sandbox, which keeps
 * nothing across restarts, decides by them (docs/decisions.md, docs/decisions.md#saved-cards).
 */
export interface SavedCardFacts {
  brand: string;
  /** `400000******0341`. */
  masked: string;
  last4: string;
  /** `MM/YYYY`. */
  expiry: string;
  usage: string | null;
}

export interface TokenChargeRequest {
  token: string;
  card: SavedCardFacts;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  recurringProcessingModel: RecurringProcessingModel | null;
  /** The payment's checkoutReference: the processor's idempotency key for this charge. */
  checkoutReference: string;
  /** The merchant's own reference of the payment. */
  merchantReference: string;
  /** Where a processor that wants the shopper (3-D Secure) sends them afterwards (services/charge-token.ts afterAuthenticationUrl). */
  returnUrl: string;
  signal?: AbortSignal;
}

/** The key a saved-card charge is reversed under at a processor: the same from every path, so it is reversed once. */
export function tokenChargeReversalReference(checkoutReference: string): string {
  return `reverse-${checkoutReference}`;
}

export interface ModificationRequest {
  /** Paylink's reference of this refund, reversal, capture or adjustment: the processor's idempotency key for it. */
  modificationReference: string;
  originalPayfacReference: string;
  /** Minor units, > 0: what a refund or reversal gives back, what a capture takes, an adjustment's new total. */
  amount: number;
  currency: string;
  signal?: AbortSignal;
}

/**
 * The processor's answer to a refund, reversal, capture or adjustment: its final word (the sandbox
 * answers at once), or "received" — a real processor took the request and reports the result later
 * in a notification that names the modification by `processorReference`.
 */
export type ModificationResult =
  | { accepted: true }
  | { accepted: false; reason: string }
  | { accepted: "received"; processorReference: string };

export interface AfterSaleProcessor {
  /**
   * Approval, refusal, or (a real processor only) the shopper wanted first; rejects only when the
   * outcome is unknown (network, timeout).
   */
  chargeToken(request: TokenChargeRequest): Promise<TokenChargeResult>;
  /**
   * Undoes whatever `chargeToken` did for this checkoutReference when Paylink never learnt the
   * outcome. Resolves once nothing stays charged (also when nothing was); rejects when it cannot
   * confirm. Safe to call any number of times. `charge` is the request as it was sent, for a
   * processor that finds a charge only by replaying it under its idempotency key (the live
   * gateway); without it, such a processor rejects.
   */
  reverseCharge(checkoutReference: string, charge?: Omit<TokenChargeRequest, "signal">): Promise<void>;
  /** Refunds `amount` of a payment. Idempotent by modificationReference; rejects when the outcome is unknown. */
  refund(request: ModificationRequest): Promise<ModificationResult>;
  /**
   * Cancels the payment if it can still be cancelled, otherwise refunds `amount` (what is not yet
   * refunded). Idempotent by modificationReference; rejects when the outcome is unknown.
   */
  cancelOrRefund(request: ModificationRequest): Promise<ModificationResult>;
  /**
   * Captures `amount` of a manual-capture authorisation (several partial captures may follow one
   * another). Idempotent by modificationReference; rejects when the outcome is unknown.
   */
  capture(request: ModificationRequest): Promise<ModificationResult>;
  /**
   * Changes an uncaptured authorisation's amount to `amount`, the new total. Idempotent by
   * modificationReference; rejects when the outcome is unknown.
   */
  adjustAuthorisation(request: ModificationRequest): Promise<ModificationResult>;
}

export function isAfterSaleProcessor(processor: object): processor is AfterSaleProcessor {
  const candidate = processor as Partial<AfterSaleProcessor>;
  return (
    typeof candidate.chargeToken === "function" &&
    typeof candidate.reverseCharge === "function" &&
    typeof candidate.refund === "function" &&
    typeof candidate.cancelOrRefund === "function" &&
    typeof candidate.capture === "function" &&
    typeof candidate.adjustAuthorisation === "function"
  );
}
