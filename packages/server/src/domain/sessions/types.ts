// The hosted-checkout session vocabulary of docs/api.md#hosted-checkout-sessions. A session is
// stored as a one-sale link (its LinkTerms) plus these terms of its own.
import type { Culture, RecurringProcessingModel } from "../links/types.ts";

export const SESSION_STATUSES = ["New", "Completed", "Expired"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** What a session carries besides the terms every link has. */
export interface SessionTerms {
  /** The merchant's order id: sent back as the webhooks' merchantReference; not unique. */
  orderReference: string;
  /** The page's "back to the shop". */
  abandonUrl: string | null;
  /** Cards saved through this session are kept under this shopper of the merchant. */
  merchantShopperReference: string | null;
  /** Where the receipt goes. */
  shopperContact: string | null;
  /** Authorise only; the merchant captures later (docs/api.md#hosted-checkout-sessions). */
  isManualCapture: boolean;
  /** Capture automatically this many hours after authorisation; ignored with manual capture. */
  captureHoursDelay: number | null;
  /** The authorisation may be adjusted before capture. */
  isPreAuth: boolean;
}

/** A money value as these endpoints accept it: an integer, or a string of digits (the live documentation's examples). */
export type WireAmount = number | string;

/** An item by the looser rules of sessions: name and amount required, field names in any letter case. */
export interface SessionItemInput {
  name: string;
  amount: WireAmount;
  quantity?: number | null;
  unitPrice?: WireAmount | null;
  amountWithoutDiscount?: WireAmount | null;
}

/** A create request after the schema check. `null` means absent. */
export interface CreateSessionRequest {
  amount: WireAmount;
  currency: string;
  returnUrl: string;
  reference: string;
  terminalIdentifier: string;
  expiresAt?: string | null;
  culture?: Culture | null;
  themeKey?: string | null;
  items?: SessionItemInput[] | null;
  isManualCapture?: boolean | null;
  captureHoursDelay?: number | null;
  isPreAuth?: boolean | null;
  recurringProcessingModel?: RecurringProcessingModel | null;
  merchantShopperReference?: string | null;
  shopperContact?: string | null;
  abandonUrl?: string | null;
}

/** The longest a session lives, and its life when the request names none. */
export const MAX_SESSION_LIFE_MS = 24 * 60 * 60 * 1000;
