// One attempt at one claimed delivery: decrypt the endpoint's secrets, sign, send (outside any
// transaction), and decide what follows — delivered, a retry after a delay, or failed for good.

import { decryptSecrets } from "../db/webhook-endpoints-repository.ts";
import type { Resolver } from "../net/outbound-guard.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import type { AttemptRecord, ClaimedDelivery } from "./delivery-queue.ts";
import { buildWebhookRequest } from "./message.ts";
import { nextRetryDelayMs, type RetryPolicy } from "./schedule.ts";
import { type SendResult, sendWebhook } from "./send.ts";

export interface AttemptContext {
  keyring: SecretKeyring;
  allowPrivate: boolean;
  timeoutMs: number;
  connectTimeoutMs: number;
  retry: RetryPolicy;
  resolver: Resolver | undefined;
  /** Aborted at shutdown: the send stops and the delivery goes back to the queue unrecorded. */
  shutdown: AbortSignal;
  /** Unix milliseconds, for webhook-timestamp. */
  now: () => number;
  onPrepareFailed: (error: unknown) => void;
}

export interface AttemptOutcome {
  /** What the queue records: the attempt's facts and the delivery's next state. */
  record: AttemptRecord;
  /** 1 for the first attempt. */
  attemptNumber: number;
}

/** Undefined when the send was aborted by shutdown: nothing to record, the lease is handed back. */
export async function attemptDelivery(delivery: ClaimedDelivery, context: AttemptContext): Promise<AttemptOutcome | undefined> {
  const attemptedAt = new Date();
  let result: SendResult;
  try {
    const secrets = decryptSecrets(
      { id: delivery.endpointId, api_key: delivery.encryptedApiKey, hmac_key: delivery.encryptedHmacKey },
      context.keyring,
    );
    const request = buildWebhookRequest(delivery.id, delivery.payload, secrets, Math.floor(context.now() / 1000));
    result = await sendWebhook(delivery.url, request, {
      allowPrivate: context.allowPrivate,
      timeoutMs: context.timeoutMs,
      connectTimeoutMs: context.connectTimeoutMs,
      signal: context.shutdown,
      ...(context.resolver ? { resolver: context.resolver } : {}),
    });
  } catch (error) {
    // Not the receiver's doing (e.g. a secret that does not decrypt): logged as an attempt all the same.
    context.onPrepareFailed(error);
    result = { delivered: false, statusCode: null, latencyMs: 0, responseExcerpt: null, error: `not sent: ${(error as Error).message}` };
  }
  if (result.aborted) return undefined;

  const attemptNumber = delivery.attemptCount + 1;
  let next: AttemptRecord["next"];
  if (result.delivered) next = { state: "delivered" };
  else {
    const retryDelayMs = nextRetryDelayMs(attemptNumber, context.retry, result.retryAfterMs);
    next = retryDelayMs === undefined ? { state: "failed" } : { state: "retry", retryDelayMs };
  }
  const { statusCode, latencyMs, responseExcerpt, error } = result;
  // Any status is an answer: the receiver is there. Only silence counts against its breaker.
  const verdict = statusCode !== null ? "answered" : result.unreachable ? "no-answer" : undefined;
  return { attemptNumber, record: { attemptedAt, statusCode, latencyMs, responseExcerpt, error, next, verdict } };
}
