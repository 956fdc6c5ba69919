// Recording what the processor said about a checkout attempt: the one way a payment's result is
// written, whether it arrives with the shopper's request, from the reconciler, or (later) in the
// processor's own notification. One transaction, locking in one order: the submission first, the
// link's row last, right before the commit, so the row every payment of the link updates is held
// as briefly as possible. The result, the link's counters, the payfacReference and the webhook
// outbox rows commit together or not at all.
import type { Transaction } from "kysely";
import type { CheckoutLink } from "../db/checkout-repository.ts";
import { lockUnfinishedAttempt, settleSlot, writeResult } from "../db/reservations-repository.ts";
import type { DB } from "../db/schema.ts";
import type { SubmissionRecord } from "../db/submissions-repository.ts";
import { decidePayment, type ProcessorOutcome, type RecordedResult, type VoidReason } from "../domain/payments/payment-outcome.ts";
import type { AuthorizeResult } from "../payments/processor.ts";
import { enqueuePaymentWebhook } from "../webhooks/outbox.ts";
import { paymentResultEvents } from "../webhooks/payment-events.ts";
import type { ServiceDeps } from "./deps.ts";

export interface RecordedOutcome {
  recorded: RecordedResult;
  submission: SubmissionRecord;
  voidReason: VoidReason | null;
}

export interface PaymentOutcome {
  checkoutReference: string;
  link: CheckoutLink;
  outcome: ProcessorOutcome;
  /** The processor's whole answer, for the webhook messages; undefined when it never answered. */
  answer: AuthorizeResult | undefined;
}

/** The link closed between the read and the sale: the transaction is rolled back and decided again. */
class LinkChanged extends Error {}

/**
 * Records the outcome of an attempt whose result is not written yet. Undefined when it already
 * was (another post of the attempt, or an earlier notification): nothing is written then.
 */
export async function recordPaymentOutcome(
  deps: Pick<ServiceDeps, "db" | "now">,
  input: PaymentOutcome,
): Promise<RecordedOutcome | undefined> {
  for (;;) {
    try {
      return await deps.db.transaction().execute((trx) => recordOnce(trx, input, deps.now()));
    } catch (error) {
      if (!(error instanceof LinkChanged)) throw error;
    }
  }
}

async function recordOnce(trx: Transaction<DB>, input: PaymentOutcome, now: Date): Promise<RecordedOutcome | undefined> {
  const { checkoutReference, link, outcome, answer } = input;
  const attempt = await lockUnfinishedAttempt(trx, checkoutReference);
  if (!attempt) return undefined;
  const { recorded, voidReason, holdsSlot } = decidePayment(outcome, attempt.state, attempt.link, now);
  const submission = await writeResult(trx, checkoutReference, recorded, outcome, voidReason, now);
  for (const event of paymentResultEvents(link, submission, recorded, answer)) {
    await enqueuePaymentWebhook(trx, link.merchantId, event.eventType, event.message);
  }
  if (holdsSlot && !(await settleSlot(trx, attempt.linkReference, recorded === "approved", now))) throw new LinkChanged();
  return { recorded, submission, voidReason };
}
