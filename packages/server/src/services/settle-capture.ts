// The processor half of a capture or an adjustment, as settle-modification.ts is for refunds:
// - askProcessorToCapture: ask the processor (outside any transaction, idempotently by the
//   capture's own payfacReference); the request that made it and the reconciler call it.
// - settleCapture: write the final result with the Capture (or Adjustment) webhook rows in one
//   transaction.
// An unknown outcome changes nothing but the state's name: the amount stays reserved and the
// reconciler asks again.
import pTimeout from "p-timeout";
import { type CaptureOutcome, type CaptureRecord, markCaptureUnknown, recordCapture } from "../db/captures-repository.ts";
import { recordModificationReceived } from "../db/modification-references-repository.ts";
import type { PaymentRecord } from "../db/payments-repository.ts";
import { errorName } from "../payments/error-name.ts";
import type { ModificationResult } from "../payments/processor.ts";
import { captureEvent } from "../webhooks/after-sale-events.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import { AFTER_SALE_PROCESSOR_TIMEOUT_MS, type AfterSaleServiceDeps, type ServiceDeps } from "./deps.ts";

/** The capture as recorded after this attempt: still reserved (or unknown) when the outcome is unknown. Never throws. */
export async function askProcessorToCapture(
  deps: AfterSaleServiceDeps,
  payment: PaymentRecord,
  capture: CaptureRecord,
): Promise<CaptureRecord> {
  const request = {
    modificationReference: capture.payfacReference,
    originalPayfacReference: capture.originalPayfacReference,
    amount: capture.amount,
    currency: capture.currency,
    signal: AbortSignal.timeout(AFTER_SALE_PROCESSOR_TIMEOUT_MS),
  };
  let result: ModificationResult;
  try {
    const processor = await deps.processors.afterSaleFor(payment.terminalIdentifier, deps.processor);
    const call = capture.kind === "adjustment" ? processor.adjustAuthorisation(request) : processor.capture(request);
    result = await pTimeout(call, { milliseconds: AFTER_SALE_PROCESSOR_TIMEOUT_MS });
    if (result.accepted === "received") {
      // Taken: the processor's notification brings the result; nothing asks again meanwhile.
      await recordModificationReceived(deps.db, capture, result.processorReference);
      deps.log.info(
        { ...referencesOf(capture), processorReference: result.processorReference },
        `${capture.kind} received by the processor`,
      );
      return capture;
    }
  } catch (error) {
    deps.log.warn(
      { ...referencesOf(capture), error: errorName(error) },
      `${capture.kind}: no answer from the processor; it stays reserved and is asked again later`,
    );
    await markCaptureUnknown(deps.db, capture.payfacReference).catch(() => undefined);
    return { ...capture, state: capture.state === "reserved" ? "unknown" : capture.state };
  }
  const outcome: CaptureOutcome = result.accepted === true ? { kind: "approved" } : { kind: "declined", reason: result.reason };
  try {
    return (await settleCapture(deps, payment, capture, outcome)) ?? capture;
  } catch (error) {
    deps.log.error(
      { ...referencesOf(capture), error: errorName(error) },
      `could not record the processor's answer to a ${capture.kind}; the reconciler asks again`,
    );
    return capture;
  }
}

/** Records the final result and its webhook in one transaction; undefined when it was already decided. */
export async function settleCapture(
  deps: ServiceDeps,
  payment: PaymentRecord,
  capture: CaptureRecord,
  outcome: CaptureOutcome,
): Promise<CaptureRecord | undefined> {
  const settled = await recordCapture(deps.db, capture.payfacReference, outcome, async (trx, finished) => {
    const event = captureEvent(payment, finished);
    await enqueuePaymentWebhook(trx, payment.merchantId, event.eventType, event.message);
  });
  if (!settled) return undefined;
  notifyWebhookWorker();
  deps.log.info({ ...referencesOf(settled), state: settled.state, amount: settled.amount }, `${settled.kind} recorded`);
  return settled;
}

function referencesOf(capture: CaptureRecord) {
  return { payfacReference: capture.payfacReference, originalPayfacReference: capture.originalPayfacReference };
}
