// The request a delivery sends (docs/webhooks.md): the message (docs/webhooks.md#the-message) with its hmacSignature
// (docs/webhooks.md#the-hmacsignature), the endpoint's apiKey as Authorization, and the Standard Webhooks headers. Signing is
// the SDK's code, the same a merchant verifies with.
import { computePaymentSignature, type StandardWebhookHeaders, standardWebhookHeaders } from "paylink-sdk";
import type { UnsignedPaymentMessage } from "./outbox.ts";

/** Field order on the wire: the signed fields in signing order (docs/webhooks.md#the-hmacsignature), then the signature, then the rest. */
const TOP_LEVEL_ORDER = ["checkoutReference", "payfacReference", "merchantReference", "amount", "currency", "reason", "success"] as const;
/** additionalData in the order docs/webhooks.md#the-message lists it; fields not listed follow in their stored order. */
const ADDITIONAL_DATA_ORDER = [
  "eventType",
  "cardNumber",
  "cardSummary",
  "cardUsage",
  "cardExpiryDate",
  "paymentMethod",
  "threeDAuthenticated",
  "authCode",
  "token",
  "paymentLinkIdentifier",
  "paymentLinkDescription",
  "originalPayfacReference",
];

export interface OutgoingWebhook {
  body: string;
  headers: Record<string, string>;
}

/**
 * The body is rebuilt in a fixed field order because jsonb does not keep the order it was given,
 * and a receiver reading the body by eye (or a log diff) deserves a stable shape. Only the
 * webhook-timestamp changes between retries; the body and webhook-id do not.
 */
export function buildWebhookRequest(
  deliveryId: string,
  payload: UnsignedPaymentMessage,
  secrets: { apiKey: string; hmacKey: string },
  timestampSeconds: number,
): OutgoingWebhook {
  const message: Record<string, unknown> = {};
  for (const field of TOP_LEVEL_ORDER) message[field] = payload[field] ?? null;
  message.hmacSignature = computePaymentSignature(payload, secrets.hmacKey);
  if (payload.additionalData && Object.keys(payload.additionalData).length > 0) {
    const data: Record<string, string> = {};
    for (const field of ADDITIONAL_DATA_ORDER)
      if (payload.additionalData[field] !== undefined) data[field] = payload.additionalData[field]!;
    for (const [field, value] of Object.entries(payload.additionalData)) if (!(field in data) && value !== undefined) data[field] = value;
    message.additionalData = data;
  }
  const body = JSON.stringify(message);
  const standard: StandardWebhookHeaders = standardWebhookHeaders(deliveryId, timestampSeconds, body, secrets.hmacKey);
  return {
    body,
    headers: {
      "content-type": "application/json; charset=utf-8",
      authorization: secrets.apiKey,
      "user-agent": "Paylink-Webhooks/1",
      ...standard,
    },
  };
}
