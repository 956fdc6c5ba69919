// The processor half of a refund or reversal, shared by the request that made it and the
// reconciler: ask the processor (outside any transaction, idempotently by the refund's own
// payfacReference), then record its final answer with the Refund webhook rows in one transaction.
// An unknown outcome changes nothing: the amount stays reserved and the reconciler asks again.
import type { PaymentRecord } from "../db/payments-repository.ts";
import { type RefundRecord, recordRefund } from "../db/refunds-repository.ts";
import { refundEvent } from "../webhooks/after-sale-events.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import { AFTER_SALE_PROCESSOR_TIMEOUT_MS, type AfterSaleDeps } from "./after-sale-deps.ts";
import { withDeadline } from "./deadline.ts";
import { errorName } from "./error-name.ts";
import type { ModificationResult } from "./processor.ts";

/** The refund as recorded after this attempt: still pending when the outcome is unknown. Never throws. */
export async function settleRefund(deps: AfterSaleDeps, payment: PaymentRecord, refund: RefundRecord): Promise<RefundRecord> {
  const request = {
    modificationReference: refund.payfacReference,
    originalPayfacReference: refund.originalPayfacReference,
    amount: refund.amount,
    currency: refund.currency,
    signal: AbortSignal.timeout(AFTER_SALE_PROCESSOR_TIMEOUT_MS),
  };
  const references = { payfacReference: refund.payfacReference, originalPayfacReference: refund.originalPayfacReference };
  let result: ModificationResult;
  try {
    const call = refund.kind === "reversal" ? deps.processor.cancelOrRefund(request) : deps.processor.refund(request);
    result = await withDeadline(call, AFTER_SALE_PROCESSOR_TIMEOUT_MS);
  } catch (error) {
    deps.log.warn(
      { ...references, error: errorName(error) },
      `${refund.kind}: no answer from the processor; it stays reserved and is asked again later`,
    );
    return refund;
  }
  try {
    const recorded = await recordRefund(
      deps.db,
      refund.payfacReference,
      result.accepted ? { kind: "succeeded" } : { kind: "failed", reason: result.reason },
      async (trx, finished) => {
        const event = refundEvent(payment, finished);
        await enqueuePaymentWebhook(trx, payment.merchantId, event.eventType, event.message);
      },
    );
    if (!recorded) return refund;
    notifyWebhookWorker();
    deps.log.info({ ...references, state: recorded.state, amount: recorded.amount }, `${refund.kind} recorded`);
    return recorded;
  } catch (error) {
    deps.log.error(
      { ...references, error: errorName(error) },
      `could not record the processor's answer to a ${refund.kind}; the reconciler asks again`,
    );
    return refund;
  }
}
