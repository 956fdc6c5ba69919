// Wire types of hosted-checkout sessions (docs/api.md#hosted-checkout-sessions): one payment page
// per order, as the live gateway's e-commerce plugins use it.
import type { Culture, RecurringProcessingModel, ResponseEnvelope } from "./types.js";

/** Minor units as an integer, or a string of digits (`"48900"`). */
export type SessionAmount = number | string;

/** An item of a session: name and amount required; a negative amount is a discount line. */
export interface SessionItem {
  name: string;
  amount: SessionAmount;
  /** Default 1. */
  quantity?: number | null;
  unitPrice?: SessionAmount | null;
  amountWithoutDiscount?: SessionAmount | null;
}

/** Body of `POST /hostedcheckout`. `null` is the same as leaving a field out. */
export interface CreateSessionRequest {
  /** > 0 (ISK ends in 00); 0 only with recurringProcessingModel: save the card, charge nothing. */
  amount: SessionAmount;
  currency: string;
  /** http or https; the shopper comes back here with `checkoutReference` appended. */
  returnUrl: string;
  /** Your order id, 1–100 printable characters; not unique. The webhooks' merchantReference. */
  reference: string;
  terminalIdentifier: string;
  /** ISO 8601, at most 24 hours ahead; default 24 hours. */
  expiresAt?: string | null;
  culture?: Culture | null;
  themeKey?: string | null;
  /** Shown on the page; when amount > 0 they add up to it. */
  items?: SessionItem[] | null;
  isManualCapture?: boolean | null;
  /** 1–672. */
  captureHoursDelay?: number | null;
  isPreAuth?: boolean | null;
  /** Also save the card. */
  recurringProcessingModel?: RecurringProcessingModel | null;
  /** 3–200 characters: your shopper; cards saved here are kept under it, and your later sessions with it offer them. */
  merchantShopperReference?: string | null;
  /** The shopper's e-mail. */
  shopperContact?: string | null;
  /** The page's "back to the shop". */
  abandonUrl?: string | null;
}

export interface CreateSessionResponse extends ResponseEnvelope {
  /** The page to send the shopper to. */
  url: string;
  /** 50 lowercase letters and digits. */
  checkoutReference: string;
}

export type SessionStatus = "New" | "Completed" | "Expired";

export interface SessionStatusResponse extends ResponseEnvelope {
  status: SessionStatus;
  /** The authorised payment's when Completed; otherwise null (never ""). */
  payfacReference: string | null;
}

/** The answer of `POST /payment/disable-token`, the live gateway's path. */
export interface PaymentDisableTokenResponse extends ResponseEnvelope {
  success: boolean;
  message: string;
}
