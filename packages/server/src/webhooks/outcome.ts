// Recording one attempt's outcome for the worker, and the log lines an operator reads: the attempt
// (debug when delivered, info when retried, warn when failed for good) and the endpoint's circuit
// breaker opening, staying open after a probe, and closing (docs/operations.md).
import type { Database } from "../db/connect.ts";
import type { BreakerChange, BreakerPolicy } from "./breaker.ts";
import { type AttemptRecord, type ClaimedDelivery, type RecordedAttempt, recordAttempt, updateBreaker } from "./delivery-queue.ts";
import type { HandOverRecorder } from "./hand-over.ts";

export interface WorkerLogger {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export const silentLogger: WorkerLogger = { debug() {}, info() {}, warn() {}, error() {} };

export async function recordOutcome(
  db: Database,
  delivery: ClaimedDelivery,
  outcome: { record: AttemptRecord; attemptNumber: number },
  breaker: BreakerPolicy,
  logger: WorkerLogger,
  handOver?: HandOverRecorder,
): Promise<ClaimedDelivery | undefined> {
  const { record, attemptNumber } = outcome;
  const recorded = await recordWithRetries(db, delivery, record, breaker, handOver);
  if (!recorded.owned)
    logger.warn({ deliveryId: delivery.id }, "webhook lease had expired before the outcome was recorded; another worker owns it now");

  const fields = {
    deliveryId: delivery.id,
    webhookId: delivery.endpointId,
    attempt: attemptNumber,
    statusCode: record.statusCode,
    latencyMs: record.latencyMs,
  };
  const next = record.next;
  if (next.state === "delivered") logger.debug(fields, "webhook delivered");
  else if (next.state === "retry")
    logger.info({ ...fields, error: record.error, retryInMs: next.retryDelayMs }, "webhook attempt failed; will retry");
  else logger.warn({ ...fields, error: record.error }, "webhook failed: every retry was used");
  if (recorded.breaker) logBreakerChange(logger, delivery, recorded.breaker, record.error);
  if (recorded.breakerError)
    logger.warn({ err: recorded.breakerError, webhookId: delivery.endpointId }, "updating a webhook endpoint's circuit breaker failed");
  return recorded.next;
}

function logBreakerChange(logger: WorkerLogger, delivery: ClaimedDelivery, change: BreakerChange, error: string | null): void {
  const endpoint = { webhookId: delivery.endpointId, merchantId: delivery.merchantId };
  if (change.kind === "opened")
    logger.warn(
      { ...endpoint, failures: change.failures, error, probeInMs: change.cooldownMs },
      "webhook endpoint not answering: circuit breaker opened; its deliveries wait (pending) until a probe gets an answer",
    );
  else if (change.kind === "probe-failed")
    logger.info(
      { ...endpoint, failures: change.failures, error, probeInMs: change.cooldownMs },
      "webhook endpoint still not answering: circuit breaker stays open",
    );
  else
    logger.info(
      { ...endpoint, openForMs: change.openForMs },
      "webhook endpoint answers again: circuit breaker closed; its waiting deliveries are being sent",
    );
}

/**
 * A few tries: losing the record would mean sending the message once more after the lease. Only the
 * first try goes through the batch: if the batch failed, the retries record this attempt on its own
 * (without a hand-over), so one attempt the statement cannot take does not keep failing the others
 * it was batched with. A batch whose commit went through unseen leaves what it handed over leased
 * until the lease runs out, when it is due again.
 */
async function recordWithRetries(
  db: Database,
  delivery: ClaimedDelivery,
  record: AttemptRecord,
  breaker: BreakerPolicy,
  handOver: HandOverRecorder | undefined,
): Promise<RecordedAttempt & { next?: ClaimedDelivery }> {
  // Only an answered, delivered attempt hands its slot over: after a failure or a probe the claim
  // loop decides, with the breaker's new state.
  const handsOver = handOver && record.next.state === "delivered" && record.verdict === "answered" && !delivery.probe;
  // The breaker once, before the delivery's row (updateBreaker never throws): a retry records the
  // attempt again, not the endpoint's verdict on it.
  const breakerUpdate = await updateBreaker(db, delivery, record, breaker);
  for (let attempt = 1; ; attempt++) {
    try {
      if (handsOver && attempt === 1) return { ...(await handOver.record(delivery, record)), ...breakerUpdate };
      return { ...(await recordAttempt(db, delivery, record, null)), ...breakerUpdate };
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
