// The processor boundary for real money (docs/processors.md): the shopper pays on the processor's
// own page, so the card number never reaches Paylink. Paylink starts a hosted payment and sends
// the shopper there; the outcome is what the processor says, asked by a status call or told in a
// signed notification, never what the shopper's return address carries.
//
//   startHostedPayment ──► (shopper on the processor's page) ──► readOutcome / parseNotification
//
// Each adapter (payments/straumur.ts, …) implements this for one processor; the use cases in
// services/ decide what an outcome becomes, exactly as for the sandbox's answers.
import type { RecurringProcessingModel } from "../domain/links/types.ts";
import type { Lang } from "../web/i18n.ts";
import type { CardUsage } from "./processor.ts";

export interface HostedPaymentRequest {
  /** Paylink's reference of this attempt: the processor's idempotency key and its order reference. */
  checkoutReference: string;
  /** `payment` charges `amount`; `tokenization` only saves the card (amount 0). */
  kind: "payment" | "tokenization";
  /** Paylink's minor units; the adapter converts them to the processor's. */
  amount: number;
  currency: string;
  /** Ask for a token for later payments (tokenize links, and pay links with a model). */
  saveCard: boolean;
  recurringProcessingModel: RecurringProcessingModel | null;
  /** Where the processor sends the shopper back: a Paylink address that asks for the outcome. */
  returnUrl: string;
  /** Where the processor's "back to the shop" goes: the checkout page again. */
  cancelUrl: string;
  /** The processor's page closes then; Paylink holds the sale slot until it has. */
  expiresAt: Date;
  culture: Lang;
  /** A session's later capture (manual, delayed, adjustable); null: captured with the authorisation. */
  capture: { manual: boolean; hoursDelay: number | null; preAuth: boolean } | null;
  /** What the processor's page shows; lines add up to `amount` when there are any. */
  items: Array<{ name: string; amount: number; quantity: number; unitPrice: number }>;
  signal?: AbortSignal;
}

export interface HostedPaymentStart {
  /** The processor's page for this attempt. */
  redirectUrl: string;
  /** The processor's own reference of the page (its session id), for status calls. */
  processorReference: string;
}

/** Card details a processor reports with an outcome; each may be missing. */
export interface ReportedCard {
  brand: string | null;
  usage: CardUsage | null;
  /** `411111******1111`. */
  masked: string | null;
  last4: string | null;
  /** `MM/YYYY`. */
  expiry: string | null;
}

/** What a processor says about a hosted attempt. */
export type HostedOutcome =
  /** The page is still open: the shopper may yet pay. */
  | { kind: "open" }
  /** The page closed unpaid: nothing was charged. */
  | { kind: "expired" }
  | {
      kind: "approved";
      payfacReference: string;
      authCode: string;
      /** The saved card's token, when one was asked for and the processor has reported it. */
      token: string | null;
      card: ReportedCard;
    }
  | { kind: "declined"; payfacReference: string; reason: string; card: ReportedCard };

/** One notification item, after its signature was checked: about a payment attempt, a modification's result, or a dispute. */
export type HostedNotification = AttemptNotification | ModificationNotification | DisputeNotification;

export interface AttemptNotification {
  /** Paylink's checkoutReference of the attempt it is about. */
  checkoutReference: string;
  /** Approved or declined; `open` for an event that decides nothing (an approval before its token). */
  outcome: HostedOutcome;
}

/** The final result of a refund, reversal, capture or adjustment the processor answered "received". */
export interface ModificationNotification {
  modification: {
    /** The processor's reference of the modification, as its "received" answer named it. */
    processorReference: string;
    /** Paylink's own reference of it, when the processor echoes the one Paylink sent (the live gateway does). */
    paylinkReference: string | null;
    /** The payment it modifies (its payfacReference at the processor, which is Paylink's too). */
    originalPayfacReference: string | null;
    succeeded: boolean;
    /** Why it failed; empty on success. */
    reason: string;
  };
}

/** Where a chargeback or dispute stands, in Paylink's words. */
export type DisputeStatus =
  /** Opened by the cardholder's bank, or asking for information: the merchant may defend it. */
  | "Open"
  /** Closed in the merchant's favour: the money stays (or comes back). */
  | "Won"
  /** Closed against the merchant: the money went back to the cardholder. */
  | "Lost";

/** A step in a chargeback or dispute on one of Paylink's payments. */
export interface DisputeNotification {
  dispute: {
    /** The processor's reference of the dispute, the same for all its steps (Stripe's `dp_…`, Adyen's chargeback pspReference). */
    disputeReference: string;
    /** The processor's reference of this step, so the same step twice is recorded once. */
    eventReference: string;
    /** The disputed payment's payfacReference. */
    payfacReference: string;
    status: DisputeStatus;
    /** The processor's own name of the step (`NOTIFICATION_OF_CHARGEBACK`, `charge.dispute.closed`…), shown to the merchant. */
    processorEvent: string;
    /** Disputed amount in Paylink's minor units, and its currency; null when the processor did not say. */
    amount: { value: number; currency: string } | null;
    /** The scheme's reason (`Fraud`, `fraudulent`, a reason code…); empty when not given. */
    reason: string;
    /** When the processor says the step happened: a later step decides the status, whatever order they arrive in. */
    occurredAt: Date;
  };
}

export interface HostedPaymentProcessor {
  readonly type: string;
  /** Creates the processor's page; rejects when it could not (nothing was charged then). Idempotent by checkoutReference. */
  startHostedPayment(request: HostedPaymentRequest): Promise<HostedPaymentStart>;
  /** Asks the processor; rejects when it cannot tell (network, time-out). */
  readOutcome(attempt: {
    checkoutReference: string;
    processorReference: string;
    signal?: AbortSignal;
    /** The query of the shopper's return, for a processor whose status call needs a value from it (Adyen's `sessionResult`); absent for the sweep. */
    returnQuery?: URLSearchParams;
  }): Promise<HostedOutcome>;
  /**
   * Checks a notification by the processor's own scheme and reads what it says about Paylink's
   * attempts. `null` when the signature (or the body) is not the processor's: nothing may change.
   */
  parseNotification(headers: Record<string, string | string[] | undefined>, rawBody: string): HostedNotification[] | null;
  /** What the processor expects back for a notification it may stop sending. */
  readonly notificationAnswer: { contentType: string; body: string };
  /**
   * Voids or refunds an approval Paylink could not turn into a sale (sold out while the shopper
   * was on the processor's page). Idempotent by `cancelReference`; rejects when unconfirmed.
   */
  cancelApproval(payfacReference: string, cancelReference: string): Promise<void>;
}
