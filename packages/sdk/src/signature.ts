// The payment webhook's hmacSignature (docs/webhooks.md#the-hmacsignature), carried in the message
// body; the Standard Webhooks headers are in standard-webhooks.ts. The server signs with this same
// code, so the two cannot drift apart.
import { createHmac } from "node:crypto";
import { base64DigestMatches, hmacKeyFromHex } from "./hmac.js";
import {
  describeHexKeyProblem,
  describeType,
  readPaymentMessage,
  SIGNED_PAYMENT_FIELDS,
  type SignedPaymentField,
} from "./webhook-input.js";

export { hmacKeyFromHex, SIGNED_PAYMENT_FIELDS, type SignedPaymentField };

/**
 * `additionalData` of a payment webhook (docs/webhooks.md#the-message). It is NOT covered by the
 * signature: treat it as information about a payment whose signed fields you have verified.
 */
export interface PaymentWebhookAdditionalData {
  /** `Authorization`, `Tokenization`, `Refund` or `TokenDisabled`. */
  eventType?: string;
  /** Masked card number, e.g. `411111******1111`. */
  cardNumber?: string;
  /** Last four digits of the card. */
  cardSummary?: string;
  /** `Debit` or `Credit`. */
  cardUsage?: string;
  cardExpiryDate?: string;
  /** Card brand code, e.g. `VI`, `MC`. */
  paymentMethod?: string;
  threeDAuthenticated?: string;
  authCode?: string;
  /** The saved card's token (tokenization events only). */
  token?: string;
  paymentLinkIdentifier?: string;
  paymentLinkDescription?: string;
  originalPayfacReference?: string;
  /** Fields added by later versions are kept, so upgrading the server never breaks a receiver. */
  [field: string]: unknown;
}

/** A payment webhook message (docs/webhooks.md#the-message). Every value is text, as sent on the wire. */
export interface PaymentWebhookMessage {
  checkoutReference: string | null;
  payfacReference: string;
  /** The `paymentLinkReference` of the link that was paid; a token payment's `reference`; for a Refund, the original payment's. */
  merchantReference: string | null;
  /** Minor units as text, e.g. `"48900"`. */
  amount: string;
  currency: string;
  reason: string | null;
  /** `"true"` or `"false"`. */
  success: string;
  /** Base64 HMAC-SHA256 over the signed fields (docs/webhooks.md#the-hmacsignature). */
  hmacSignature: string;
  additionalData?: PaymentWebhookAdditionalData;
}

/** What {@link computePaymentSignature} reads: the seven signed fields; null or absent sign as "". */
export type SignablePaymentMessage = { readonly [F in SignedPaymentField]?: string | null };

/**
 * The exact text that `hmacSignature` signs: the seven fields in order, null or absent as "",
 * joined with ":" (docs/webhooks.md#the-hmacsignature steps 1-3). Useful when comparing with another implementation.
 * @throws TypeError when a field holds something other than a string, null or undefined.
 */
export function paymentSignaturePayload(message: SignablePaymentMessage): string {
  return SIGNED_PAYMENT_FIELDS.map((field) => {
    const value: unknown = message[field];
    if (value === null || value === undefined) return "";
    if (typeof value !== "string") {
      throw new TypeError(`${field} must be a string or null, got ${describeType(value)}`);
    }
    return value;
  }).join(":");
}

/**
 * The `hmacSignature` of a payment webhook message (docs/webhooks.md#the-hmacsignature): HMAC-SHA256 of the UTF-8
 * payload with the hex key's bytes, as Base64.
 * @throws TypeError for a key that is not hex, or a field that is not a string or null.
 */
export function computePaymentSignature(message: SignablePaymentMessage, hexKey: string): string {
  return paymentDigest(paymentSignaturePayload(message), hmacKeyFromHex(hexKey)).toString("base64");
}

function paymentDigest(payload: string, key: Buffer): Buffer {
  return createHmac("sha256", key).update(payload, "utf8").digest();
}

export type PaymentWebhookFailureReason =
  | "malformed_json"
  | "missing_signature"
  | "missing_field"
  | "wrong_type"
  | "bad_key"
  | "signature_mismatch";

export type PaymentWebhookVerification =
  | { valid: true; message: PaymentWebhookMessage }
  | { valid: false; reason: PaymentWebhookFailureReason; detail: string };

/**
 * Checks the `hmacSignature` of a payment webhook. Pass the raw request body (string or
 * Buffer) or the already-parsed object.
 *
 * Never throws for anything a sender could put in the message: every problem is reported as
 * `{ valid: false, reason, detail }`. The comparison takes constant time. On success the
 * message comes back with absent nullable fields set to null.
 */
export function verifyPaymentWebhook(messageOrRawJson: string | Uint8Array | object, hexKey: string): PaymentWebhookVerification {
  const keyProblem = describeHexKeyProblem(hexKey);
  if (keyProblem !== undefined) return { valid: false, reason: "bad_key", detail: keyProblem };

  const reading = readPaymentMessage(messageOrRawJson, true);
  if (!reading.ok) return { valid: false, reason: reading.reason, detail: reading.detail };
  // readPaymentMessage has checked every field that the type promises.
  const message = reading.value as unknown as PaymentWebhookMessage;

  const expected = paymentDigest(paymentSignaturePayload(message), hmacKeyFromHex(hexKey));
  if (!base64DigestMatches(expected, message.hmacSignature)) {
    return {
      valid: false,
      reason: "signature_mismatch",
      detail: "hmacSignature does not match the signed fields of the message and this HMAC key",
    };
  }
  return { valid: true, message };
}
