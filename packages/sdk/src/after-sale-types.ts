// Wire types of the after-sale API (docs/api.md#saved-cards-and-refunds): charges of saved cards,
// refunds, reversals, token disable and payment reads.
import type { RecurringProcessingModel, ResponseEnvelope } from "./types.js";

/** Body of `POST /payment`: the e-commerce plugins' shape. */
export interface ChargeTokenRequest {
  /** A terminal of yours (12 characters). */
  terminalIdentifier: string;
  /** Integer minor units, > 0 (ISK must end in 00). */
  amount: number;
  /** ISO 4217 code, e.g. `ISK`. */
  currency: string;
  /** Your own reference of this payment, 1–200 printable characters; the webhook's merchantReference. */
  reference: string;
  tokenDetails: {
    /** The token from a TokenizeByLink link (or a pay-and-save link). */
    tokenValue: string;
    /** Default: the model the card was saved with. */
    recurringProcessingModel?: RecurringProcessingModel | null;
  };
  /** Stored as given. */
  shopperIp?: string | null;
  /** Stored as given. */
  origin?: string | null;
  /** Stored as given (`Web`, `iOS`…). */
  channel?: string | null;
  /** Stored as given. */
  returnUrl?: string | null;
}

/**
 * All are HTTP 200; a charge whose outcome is unknown is an error (503 `5002`), never one of these.
 * `RedirectShopper`: the card processor wants the shopper (3-D Secure) first — send them to
 * `redirect.url`; the result arrives as the `Authorization` webhook.
 */
export type TokenPaymentResultCode = "Authorised" | "Refused" | "RedirectShopper";

export interface ChargeTokenResponse extends ResponseEnvelope {
  resultCode: TokenPaymentResultCode;
  payfacReference: string;
  /** This payment's own checkoutReference (also in its webhook). */
  checkoutReference: string;
  /** Your `reference`. */
  merchantReference: string;
  amount: number;
  currency: string;
  /** Only when Refused, e.g. `Not enough balance`. */
  refusalReason?: string;
  /** Only with `RedirectShopper`: where the shopper authenticates. */
  redirect?: { url: string; method: "GET" };
  additionalData: {
    /** Masked, e.g. `411111******1111`. */
    cardNumber: string;
    /** Last four digits. */
    cardSummary: string;
    /** Card brand code, e.g. `VI`. */
    paymentMethod: string;
    /** `Debit` or `Credit`. */
    cardUsage: string;
    /** Only when Authorised. */
    authCode?: string;
  };
}

export type RefundReason = "OTHER" | "RETURN" | "DUPLICATE" | "FRAUD" | "CUSTOMER REQUEST";

/** Body of `POST /modification/refund`. */
export interface RefundRequest {
  /** The payment's payfacReference (a link sale or a token payment). */
  payfacReference: string;
  /** Integer minor units, > 0 (ISK: ends in 00), at most what is left to refund. */
  amount: number;
  /** The payment's currency. */
  currency: string;
  /** Your own reference of the refund. */
  reference?: string | null;
  refundReason?: RefundReason | null;
}

/** Body of `POST /modification/reverse`. */
export interface ReverseRequest {
  payfacReference: string;
  reference?: string | null;
}

/** The answer to a refund, reversal, capture or adjustment: received; the result arrives as a webhook. */
export interface ModificationResponse extends ResponseEnvelope {
  /** The refund's own reference. */
  payfacReference: string;
  originalPayfacReference: string;
  status: "Received";
}

/**
 * Body of `POST /modification/capture` (capture a manual-capture authorisation, in part or in
 * full) and of `POST /modification/adjust` (its new authorised total, before any capture).
 */
export interface CaptureRequest {
  /** Your reference (the order id). */
  reference?: string | null;
  /** The authorised payment's payfacReference. */
  payfacReference: string;
  /** Minor units, > 0: an integer or a string of digits. */
  amount: number | string;
  /** The payment's currency. */
  currency: string;
}
export type AdjustRequest = CaptureRequest;

/** `Reserved` until the processor answers; `Unknown`: asked, no answer yet (asked again). */
export type CaptureStatus = "Reserved" | "Approved" | "Declined" | "Unknown";

export interface PaymentCapture {
  /** The capture's own reference. */
  payfacReference: string;
  amount: number;
  status: CaptureStatus;
  created: string;
}

export interface DisableTokenRequest {
  tokenValue: string;
}

/** `Pending`: the processor's answer is not recorded yet; `Cancelled`: voided or reversed, never a sale. */
export type PaymentResultCode = "Authorised" | "Refused" | "Pending" | "Cancelled";
/** `Pending` until the processor's final answer (a lost answer is asked again until it comes). */
export type RefundStatus = "Pending" | "Succeeded" | "Failed";

export interface PaymentRefund {
  /** The refund's own reference. */
  payfacReference: string;
  type: "Refund" | "Reversal";
  amount: number;
  /** The refundReason sent, or the processor's reason for a failure. */
  reason: string | null;
  /** Your reference of the refund. */
  reference: string | null;
  status: RefundStatus;
  createdAt: string;
}

/** Where a chargeback or dispute stands: Open (the merchant may defend it), Won, Lost. */
export type DisputeStatus = "Open" | "Won" | "Lost";

/** A chargeback or dispute a real processor reported on the payment. */
export interface PaymentDispute {
  /** The processor's reference of the dispute. */
  disputeReference: string;
  status: DisputeStatus;
  /** The processor's name of its latest step (`NOTIFICATION_OF_CHARGEBACK`, `charge.dispute.closed`…). */
  processorEvent: string;
  /** What is disputed, in minor units; null when the processor did not say. */
  amount: number | null;
  currency: string | null;
  /** The card scheme's reason, as the processor gave it. */
  reason: string;
  openedAt: string;
  updatedAt: string;
}

/** A payment as read with `GET /payments/{payfacReference}`. */
export interface Payment {
  payfacReference: string;
  checkoutReference: string;
  /** Your reference (token payment) or the paymentLinkReference (link sale). */
  merchantReference: string;
  paymentLinkReference: string | null;
  amount: number;
  currency: string;
  resultCode: PaymentResultCode;
  refusalReason: string | null;
  /** Masked card number. */
  cardNumber: string | null;
  cardSummary: string | null;
  paymentMethod: string | null;
  createdAt: string;
  /** The sum of the refunds that succeeded. */
  refundedAmount: number;
  refunds: PaymentRefund[];
  /** Authorised for manual capture (a session with isManualCapture). */
  isManualCapture?: boolean;
  /** What is captured: the amount for a payment captured with its authorisation. */
  capturedAmount?: number;
  captures?: PaymentCapture[];
  /** Chargebacks and disputes at a real processor, the first opened first; empty for most payments. */
  disputes: PaymentDispute[];
}

export interface GetPaymentResponse extends ResponseEnvelope {
  payment: Payment;
}
