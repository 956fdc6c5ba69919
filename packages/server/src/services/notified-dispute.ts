// A step in a chargeback or dispute a processor reports on one of Paylink's payments
// (docs/processors.md#disputes): kept once, and told to the merchant's endpoints that asked for
// Dispute events — in the transaction that keeps it, and only when it is the dispute's latest step,
// so an older step arriving late changes neither where the dispute stands nor what the merchant heard last.
import { type DisputeStep, isLatestStep, recordDisputeStep } from "../db/disputes-repository.ts";
import { merchantOfTerminal } from "../db/merchants-repository.ts";
import { findPayment } from "../db/payments-repository.ts";
import type { DisputeNotification } from "../payments/hosted.ts";
import { disputeEvent } from "../webhooks/after-sale-events.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import type { ServiceDeps } from "./deps.ts";

/** `not-ours`: about no payment of this terminal (one taken outside Paylink); acknowledged, nothing kept. */
export async function settleNotifiedDispute(
  deps: ServiceDeps,
  terminalIdentifier: string,
  { dispute }: DisputeNotification,
): Promise<"recorded" | "not-ours"> {
  const merchantId = await merchantOfTerminal(deps.db, terminalIdentifier);
  const payment = merchantId && (await findPayment(deps.db, merchantId, dispute.payfacReference));
  // Only this terminal's payments: another terminal's key never speaks for them.
  if (!merchantId || !payment || payment.terminalIdentifier !== terminalIdentifier) return "not-ours";
  const step: DisputeStep = {
    terminalIdentifier,
    merchantId,
    eventReference: dispute.eventReference,
    disputeReference: dispute.disputeReference,
    payfacReference: payment.payfacReference,
    status: dispute.status,
    processorEvent: dispute.processorEvent,
    amount: dispute.amount?.value ?? null,
    currency: dispute.amount?.currency ?? null,
    reason: dispute.reason,
    occurredAt: dispute.occurredAt,
  };
  const told = await deps.db.transaction().execute(async (trx) => {
    if (!(await recordDisputeStep(trx, step)) || !(await isLatestStep(trx, step))) return false;
    const { eventType, message } = disputeEvent(payment, step);
    await enqueuePaymentWebhook(trx, merchantId, eventType, message);
    return true;
  });
  if (told) notifyWebhookWorker();
  deps.log.info({ terminalIdentifier, disputeReference: dispute.disputeReference, status: dispute.status }, "dispute step recorded");
  return "recorded";
}
