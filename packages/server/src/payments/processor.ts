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
