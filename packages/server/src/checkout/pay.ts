// One payment (or card save) through a link: reserve a sale slot, call the processor outside any
// transaction, record the result with its webhook outbox rows in one transaction.
//
//   reserveSale ──► processor.authorize ──► recordResult (+ outbox) ──► notify webhook worker
//   (short trx)     (no trx, timed out)     (short trx)
//
// A shopper whose card is approved always has a sale: the slot was taken before the charge. The
// exceptions are a merchant lowering the cap or disabling the link, the link expiring, while the
// card is being charged, and an attempt the reconciler already reversed; that approval is
// cancelled at the processor and the shopper is told so.
import type { FastifyBaseLogger } from "fastify";
import type { CheckoutLink } from "../db/checkout-repository.ts";
import type { Database } from "../db/connect.ts";
import { type CommonResult, recordCommonResult } from "../db/record-result-at-once.ts";
import { type ProcessorOutcome, recordResult, type VoidReason } from "../db/reservations-repository.ts";
import { reserveSale } from "../db/reserve-sale.ts";
import { findSubmission, type SubmissionRecord } from "../db/submissions-repository.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import { withDeadline } from "../payments/deadline.ts";
import { errorName } from "../payments/error-name.ts";
import type { AuthorizeResult, PaymentProcessor } from "../payments/processor.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import { paymentResultEvents } from "../webhooks/payment-events.ts";
import type { ValidCheckout } from "./form.ts";
import type { ShownPrice } from "./form-token.ts";
import { cancelVoidedApproval, reconcileStalePayments, reverseUnknownAttempt } from "./reconcile.ts";

/** How long a shopper's payment waits for the processor: far below the reservation TTL. */
const PROCESSOR_TIMEOUT_MS = 60_000;

export interface PayDeps {
  db: Database;
  processor: PaymentProcessor;
  now: () => Date;
  log: FastifyBaseLogger;
  /** How long a re-posted form waits for the first post's result. */
  duplicateWaitMs: number;
}

export type PayOutcome =
  | { kind: "approved"; submission: SubmissionRecord }
  | { kind: "declined"; reason: string; submission: SubmissionRecord }
  /** No answer from the processor: nothing charged as far as Paylink knows. */
  | { kind: "failed" }
  /** Approved, but the link sold out, was disabled or expired meanwhile (or the attempt was reversed): the approval was cancelled. */
  | { kind: "voided"; reason: VoidReason }
  /** No sale slot (sold out, or all remaining slots held by payments in flight), or no longer open. */
  | { kind: "unavailable" }
  /** The same form is still being processed by an earlier post. */
  | { kind: "pending" }
  /**
   * The processor never answered and the attempt could not yet be reversed: the shopper must not
   * pay again now; the attempt is reversed by the reconciler and never becomes a sale.
   */
  | { kind: "unconfirmed" };

export async function payWithLink(
  deps: PayDeps,
  link: CheckoutLink,
  checkout: ValidCheckout,
  attempt: { attemptKey: string | null; shownPrice: ShownPrice },
): Promise<PayOutcome> {
  const request = {
    linkReference: link.reference,
    attemptKey: attempt.attemptKey,
    shownPrice: attempt.shownPrice,
    answers: checkout.answers,
    card: checkout.cardSummary,
    now: deps.now(),
  };
  let reservation = await reserveSale(deps.db, request);
  if (reservation.kind === "unavailable" && (await reconcileStalePayments(deps, link.reference)) > 0) {
    reservation = await reserveSale(deps.db, { ...request, now: deps.now() });
  }
  if (reservation.kind === "unavailable") return { kind: "unavailable" };
  if (reservation.kind === "duplicate") return awaitEarlierAttempt(deps, reservation.submission);

  const { checkoutReference, amount, currency } = reservation;
  const tokenize = link.terms.type === "TokenizeByLink";
  let result: AuthorizeResult | undefined;
  const signal = AbortSignal.timeout(PROCESSOR_TIMEOUT_MS);
  try {
    // Raced against the deadline: a processor client that ignores its signal cannot hold the shopper.
    result = await withDeadline(
      deps.processor.authorize({
        kind: tokenize ? "tokenization" : "payment",
        amount: tokenize ? 0 : amount,
        currency,
        card: checkout.card,
        saveCard: tokenize || link.terms.recurringProcessingModel !== null,
        recurringProcessingModel: link.terms.recurringProcessingModel,
        checkoutReference,
        merchantReference: link.reference,
        signal,
      }),
      PROCESSOR_TIMEOUT_MS,
    );
  } catch (error) {
    // Never log the error object whole: a processor client might put the request in it.
    deps.log.warn({ checkoutReference, paymentLinkReference: link.reference, error: errorName(error) }, "payment processor call failed");
    // The outcome is unknown: the card may have been charged. Undo the attempt before saying
    // "not charged"; if that cannot be confirmed, keep the slot and let the reconciler finish it.
    if (!(await reverseUnknownAttempt(deps, checkoutReference))) return { kind: "unconfirmed" };
  }

  const outcome: ProcessorOutcome = !result
    ? { kind: "failed", reason: "Processor unavailable" }
    : result.approved
      ? {
          kind: "approved",
          payfacReference: result.payfacReference,
          authCode: result.authCode,
          token: result.token,
          cardBrand: result.cardBrand,
          cardUsage: result.cardUsage,
        }
      : {
          kind: "declined",
          payfacReference: result.payfacReference,
          reason: result.reason,
          cardBrand: result.cardBrand,
          cardUsage: result.cardUsage,
        };

  const pending = { amount, currency, answers: checkout.answers, card: checkout.cardSummary };
  const recorded = await recordWithRetry(deps, link, { checkoutReference, pending }, outcome, result).catch((error: unknown) => {
    // The answer's payfacReference is another payment's (D-211): it stays unrecorded, the attempt
    // unknown, and the reconciler reverses it; the shopper is told the payment is not confirmed.
    if (isUniqueViolation(error)) return "unconfirmed" as const;
    throw error;
  });
  if (recorded === "unconfirmed") return { kind: "unconfirmed" };
  // Already finished by another post of this attempt: report that result.
  if (!recorded) return awaitEarlierAttempt(deps, { checkoutReference, linkReference: link.reference });
  notifyWebhookWorker();
  deps.log.info({ checkoutReference, paymentLinkReference: link.reference, result: recorded.recorded }, "checkout submission recorded");

  switch (recorded.recorded) {
    case "approved":
      return { kind: "approved", submission: recorded.submission };
    case "declined":
      return { kind: "declined", reason: recorded.submission.reason ?? "Refused", submission: recorded.submission };
    case "failed":
      return { kind: "failed" };
    case "voided": {
      const reason = recorded.voidReason ?? "Sold out";
      if (reason === "Reversed" && outcome.kind === "approved") {
        // The reconciler had the processor confirm this attempt reversed while this instance was
        // stalled (longer than the reservation): an approval now means the processor broke its
        // contract or our clocks lie. Not a sale; an operator must check the charge is gone.
        deps.log.error(
          { checkoutReference, paymentLinkReference: link.reference, payfacReference: outcome.payfacReference },
          "ALERT: approval arrived for a payment attempt already reversed and abandoned; recorded as failed, its cancel is owed",
        );
      }
      // The cancel is owed (flagged in the same transaction as the result); the reconciler
      // retries it if the processor does not confirm now.
      if (outcome.kind === "approved") await cancelVoidedApproval(deps, checkoutReference, outcome.payfacReference);
      return { kind: "voided", reason };
    }
  }
}

/**
 * The result must be written: the card may have been charged. A database hiccup is retried; if
 * the write still fails, the submission stays pending (its slot held) and the error names the
 * references an operator needs to reconcile it.
 */
async function recordWithRetry(
  deps: PayDeps,
  link: CheckoutLink,
  attempt: { checkoutReference: string; pending: CommonResult["pending"] },
  outcome: ProcessorOutcome,
  result: AuthorizeResult | undefined,
) {
  const { checkoutReference } = attempt;
  const delays = [0, 250, 1000, 3000];
  let lastError: unknown;
  for (const wait of delays) {
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      // The common case in one statement (D-231); anything else in the general order (D-202).
      const now = deps.now();
      const common = await recordCommonResult(deps.db, {
        ...attempt,
        linkReference: link.reference,
        merchantId: link.merchantId,
        outcome,
        now,
        events: (submission) => paymentResultEvents(link, submission, outcome.kind, result),
      });
      if (common) return common;
      return await recordResult(deps.db, checkoutReference, outcome, now, async (trx, recordedAs, submission) => {
        for (const event of paymentResultEvents(link, submission, recordedAs, result)) {
          await enqueuePaymentWebhook(trx, link.merchantId, event.eventType, event.message);
        }
      });
    } catch (error) {
      lastError = error;
      if (isUniqueViolation(error)) break; // a reference another payment holds: trying again cannot help
    }
  }
  deps.log.error(
    {
      checkoutReference,
      paymentLinkReference: link.reference,
      payfacReference: "payfacReference" in outcome ? outcome.payfacReference : null,
      outcome: outcome.kind,
      error: errorName(lastError),
    },
    "could not record a processor result; the submission stays pending until reconciled",
  );
  throw lastError;
}

/** A second post of one form: wait for the first post's result instead of paying twice. */
async function awaitEarlierAttempt(
  deps: PayDeps,
  earlier: Pick<SubmissionRecord, "checkoutReference" | "linkReference">,
): Promise<PayOutcome> {
  const deadline = Date.now() + deps.duplicateWaitMs;
  for (;;) {
    const submission = await findSubmission(deps.db, earlier.linkReference, earlier.checkoutReference);
    if (submission && submission.state !== "pending") {
      if (submission.state === "approved") return { kind: "approved", submission };
      if (submission.state === "declined") return { kind: "declined", reason: submission.reason ?? "Refused", submission };
      return { kind: "failed" };
    }
    if (Date.now() >= deadline) return { kind: "pending" };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
