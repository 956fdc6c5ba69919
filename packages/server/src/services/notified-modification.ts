// The final result of a refund, reversal, capture or adjustment that a real processor answered
// "received" (docs/processors.md#after-the-sale): its notification names the modification by the
// processor's reference, and the result is recorded by the same use cases as the sandbox's at-once
// answers, so the Refund or Capture webhook goes out once whichever way it arrives.
import { awaitsProcessorAnswer, findModificationAt } from "../db/modification-references-repository.ts";
import { findPayment } from "../db/payments-repository.ts";
import type { ModificationNotification } from "../payments/hosted.ts";
import type { ServiceDeps } from "./deps.ts";
import { settleCapture } from "./settle-capture.ts";
import { settleModification } from "./settle-modification.ts";

export type NotifiedModification =
  /** Recorded now, or earlier by the same notification: nothing more to do. */
  | "recorded"
  /** About no modification Paylink made through this terminal (one made in the processor's own portal). */
  | "not-ours"
  /** Perhaps about a modification whose "received" answer is not recorded yet: the processor should send it again. */
  | "too-early";

export async function settleNotifiedModification(
  deps: ServiceDeps,
  terminalIdentifier: string,
  { modification }: ModificationNotification,
): Promise<NotifiedModification> {
  const found = await findModificationAt(deps.db, modification);
  if (!found) {
    const original = modification.originalPayfacReference;
    return original !== null && (await awaitsProcessorAnswer(deps.db, original)) ? "too-early" : "not-ours";
  }
  const record = found.kind === "refund" ? found.refund : found.capture;
  const payment = await findPayment(deps.db, record.merchantId, record.originalPayfacReference);
  // Only this terminal's payments: another terminal's key never decides them.
  if (!payment || payment.terminalIdentifier !== terminalIdentifier) return "not-ours";
  if (modification.originalPayfacReference !== null && modification.originalPayfacReference !== payment.payfacReference) return "not-ours";
  if (found.kind === "refund") {
    const outcome = modification.succeeded ? { kind: "succeeded" as const } : { kind: "failed" as const, reason: modification.reason };
    const settled = await settleModification(deps, payment, found.refund, outcome);
    if (!settled && !modification.succeeded && found.refund.state === "succeeded") alertFailedAfterSuccess(deps, found.refund);
  } else {
    const outcome = modification.succeeded ? { kind: "approved" as const } : { kind: "declined" as const, reason: modification.reason };
    const settled = await settleCapture(deps, payment, found.capture, outcome);
    if (!settled && !modification.succeeded && found.capture.state === "approved") alertFailedAfterSuccess(deps, found.capture);
  }
  return "recorded";
}

/**
 * A processor reports that a modification it confirmed earlier failed after all (Adyen's
 * REFUND_FAILED, REFUNDED_REVERSED, CAPTURE_FAILED). Paylink's records, balances and the
 * merchant's webhook already say it succeeded, and a settled modification is never rewritten;
 * an operator must look (docs/processors.md#after-the-sale). Acknowledged, so the processor stops.
 */
function alertFailedAfterSuccess(
  deps: ServiceDeps,
  record: { kind: string; payfacReference: string; originalPayfacReference: string },
): void {
  deps.log.error(
    { payfacReference: record.payfacReference, originalPayfacReference: record.originalPayfacReference },
    `ALERT: the processor reports a ${record.kind} it confirmed earlier as failed; Paylink still shows it done. Check it at the processor`,
  );
}
