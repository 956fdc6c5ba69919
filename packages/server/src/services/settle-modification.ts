// The processor half of a refund or reversal, in two steps:
// - askProcessorToModify: ask the processor (outside any transaction, idempotently by the
//   modification's own payfacReference); the request that made it and the reconciler call it.
// - settleModification: write a final result with the Refund webhook rows (and the shopper's refund
//   notice, when the payment had a receipt) in one transaction. The
//   processor's synchronous answer ends here; so will a result that a processor's notification
//   brings later, and a capture's.
// An unknown outcome changes nothing: the amount stays reserved and the reconciler asks again.
import pTimeout from "p-timeout";
import { recordModificationReceived } from "../db/modification-references-repository.ts";
import type { PaymentRecord } from "../db/payments-repository.ts";
import { type RefundOutcome, type RefundRecord, recordRefund } from "../db/refunds-repository.ts";
import { notifyMailWorker, queueMail } from "../mail/outbox.ts";
import { refundNotice } from "../mail/refund-mail.ts";
import { errorName } from "../payments/error-name.ts";
import type { ModificationResult } from "../payments/processor.ts";
import { refundEvent } from "../webhooks/after-sale-events.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import { AFTER_SALE_PROCESSOR_TIMEOUT_MS, type AfterSaleServiceDeps, type ServiceDeps } from "./deps.ts";

/** The modification as recorded after this attempt: still pending when the outcome is unknown. Never throws. */
export async function askProcessorToModify(
  deps: AfterSaleServiceDeps,
  payment: PaymentRecord,
  modification: RefundRecord,
): Promise<RefundRecord> {
  const request = {
    modificationReference: modification.payfacReference,
    originalPayfacReference: modification.originalPayfacReference,
    amount: modification.amount,
    currency: modification.currency,
    signal: AbortSignal.timeout(AFTER_SALE_PROCESSOR_TIMEOUT_MS),
  };
  let result: ModificationResult;
  try {
    const processor = await deps.processors.afterSaleFor(payment.terminalIdentifier, deps.processor);
    const call = modification.kind === "reversal" ? processor.cancelOrRefund(request) : processor.refund(request);
    // Stop waiting even if the processor's client ignores the signal.
    result = await pTimeout(call, { milliseconds: AFTER_SALE_PROCESSOR_TIMEOUT_MS });
    if (result.accepted === "received") {
      // Taken: the processor's notification brings the result; nothing asks again meanwhile.
      await recordModificationReceived(deps.db, modification, result.processorReference);
      deps.log.info(
        { ...referencesOf(modification), processorReference: result.processorReference },
        `${modification.kind} received by the processor`,
      );
      return modification;
    }
  } catch (error) {
    deps.log.warn(
      { ...referencesOf(modification), error: errorName(error) },
      `${modification.kind}: no answer from the processor; it stays reserved and is asked again later`,
    );
    return modification;
  }
  const outcome: RefundOutcome = result.accepted === true ? { kind: "succeeded" } : { kind: "failed", reason: result.reason };
  try {
    return (await settleModification(deps, payment, modification, outcome)) ?? modification;
  } catch (error) {
    deps.log.error(
      { ...referencesOf(modification), error: errorName(error) },
      `could not record the processor's answer to a ${modification.kind}; the reconciler asks again`,
    );
    return modification;
  }
}

/**
 * Records the final result of a pending modification and its Refund webhook in one transaction.
 * Undefined when it was already settled (by a racing request, the reconciler or a notification):
 * nothing is written twice.
 */
export async function settleModification(
  deps: ServiceDeps,
  payment: PaymentRecord,
  modification: RefundRecord,
  outcome: RefundOutcome,
): Promise<RefundRecord | undefined> {
  // Rendered before the transaction; a failure to read or render it never stops the refund's record.
  const notice =
    outcome.kind === "succeeded"
      ? await refundNotice(deps.db, payment, modification).catch((error) => {
          deps.log.warn({ ...referencesOf(modification), error: errorName(error) }, "could not prepare the refund notice e-mail");
          return undefined;
        })
      : undefined;
  const settled = await recordRefund(deps.db, modification.payfacReference, outcome, async (trx, finished) => {
    const event = refundEvent(payment, finished);
    await enqueuePaymentWebhook(trx, payment.merchantId, event.eventType, event.message);
    if (notice) await queueMail(trx, notice);
  });
  if (!settled) return undefined;
  notifyWebhookWorker();
  if (notice) notifyMailWorker();
  deps.log.info({ ...referencesOf(settled), state: settled.state, amount: settled.amount }, `${settled.kind} recorded`);
  return settled;
}

function referencesOf(modification: RefundRecord) {
  return { payfacReference: modification.payfacReference, originalPayfacReference: modification.originalPayfacReference };
}
