// One payment (or card save) through a link's checkout: reserve a sale slot, call the processor
// outside any transaction, record its outcome with the webhook outbox rows in one transaction.
//
//   reserveSale ──► processor.authorize ──► recordPaymentOutcome (+ outbox) ──► wake the webhook worker
//   (one statement)  (no transaction, timed out)  (one transaction)
//
// A shopper whose card is approved always has a sale: the slot was taken before the charge. The
// exceptions are a merchant lowering the cap or disabling the link, the link expiring, while the
// card is being charged, and an attempt the reconciler already reversed; that approval is
// cancelled at the processor and the shopper is told so.
import pTimeout from "p-timeout";
import type { CheckoutLink } from "../db/checkout-repository.ts";
import { reserveSale } from "../db/reservations-repository.ts";
import { type Answer, findSubmission, type SubmissionRecord } from "../db/submissions-repository.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import type { RecurringProcessingModel } from "../domain/links/types.ts";
import type { ProcessorOutcome, VoidReason } from "../domain/payments/payment-outcome.ts";
import { notifyMailWorker } from "../mail/outbox.ts";
import { errorName } from "../payments/error-name.ts";
import type { AuthorizeResult, CardDetails, SavedCardFacts } from "../payments/processor.ts";
import type { Lang } from "../web/i18n.ts";
import { notifyWebhookWorker } from "../webhooks/outbox.ts";
import type { CheckoutServiceDeps } from "./deps.ts";
import { cancelVoidedApproval, reconcileStalePayments, reverseUnknownAttempt } from "./reconcile-payments.ts";
import { type RecordedOutcome, recordPaymentOutcome } from "./record-payment-outcome.ts";
import { afterAuthenticationUrl } from "./shopper-authentication.ts";

/** How long a shopper's payment waits for the processor: far below the reservation TTL. */
const PROCESSOR_TIMEOUT_MS = 60_000;

/** A database hiccup while recording a result is retried after these waits (ms). */
const RECORD_RETRY_DELAYS = [0, 250, 1000, 3000];

export interface PayByLinkDeps extends CheckoutServiceDeps {
  /** How long a re-posted form waits for the first post's result. */
  duplicateWaitMs: number;
  /** Where the portal is, for the links in the mail a payment causes. */
  publicBaseUrl: string;
}

/**
 * A saved card of this session's shopper, chosen on the page (docs/api.md#hosted-checkout-sessions):
 * charged by its token, as the session's one payment.
 */
export interface SavedCardChoice {
  token: string;
  facts: SavedCardFacts;
  /** The model the card was saved with: a later charge of it is that kind of payment. */
  recurringProcessingModel: RecurringProcessingModel | null;
}

/** What the shopper's valid form says. */
export interface PaymentRequest {
  card: CardDetails | SavedCardChoice;
  /** Safe to store: brand, masked number, last four, `MM/YYYY`. */
  cardSummary: { brand: string; masked: string; last4: string; expiry: string };
  answers: Answer[];
  /** From the signed form token: one per page shown, null when the client sent none. */
  attemptKey: string | null;
  /** The price and cart digest the shopper's page showed; the link must still ask them. */
  shownPrice: { amount: number; currency: string; cart: string };
  /** The checkout page's language: the receipt's. */
  language: Lang;
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

export async function payByLink(deps: PayByLinkDeps, link: CheckoutLink, request: PaymentRequest): Promise<PayOutcome> {
  const saved = "token" in request.card ? request.card : null;
  const { processor, tokenProcessor } = deps;
  // Offered only where a processor charges tokens (the page reads the same test).
  if (saved && !tokenProcessor) return { kind: "failed" };
  const newSubmission = {
    linkReference: link.reference,
    attemptKey: request.attemptKey,
    shownPrice: request.shownPrice,
    answers: request.answers,
    card: request.cardSummary,
    paidWithToken: saved?.token ?? null,
  };
  let reservation = await reserveSale(deps.db, { ...newSubmission, now: deps.now() });
  // Slots held by attempts whose outcome never arrived are released first, then tried again.
  if (reservation.kind === "unavailable" && (await reconcileStalePayments(deps, link.reference)) > 0) {
    reservation = await reserveSale(deps.db, { ...newSubmission, now: deps.now() });
  }
  if (reservation.kind === "unavailable") return { kind: "unavailable" };
  if (reservation.kind === "duplicate") return awaitEarlierAttempt(deps, reservation.submission);

  const { checkoutReference, amount, currency } = reservation;
  const tokenize = link.terms.type === "TokenizeByLink";
  let answer: AuthorizeResult | undefined;
  try {
    // Raced against the timeout too: a processor client that ignores its signal cannot hold the shopper.
    // A session's payment is the shop's order.
    const merchantReference = link.session?.orderReference ?? link.reference;
    const signal = AbortSignal.timeout(PROCESSOR_TIMEOUT_MS);
    const call =
      saved && tokenProcessor
        ? tokenProcessor.chargeToken({
            token: saved.token,
            card: saved.facts,
            amount,
            currency,
            recurringProcessingModel: saved.recurringProcessingModel,
            checkoutReference,
            merchantReference,
            returnUrl: afterAuthenticationUrl(deps.publicBaseUrl, { checkoutReference, returnUrl: link.terms.returnUrl }),
            signal,
          })
        : processor.authorize({
            kind: tokenize ? "tokenization" : "payment",
            amount: tokenize ? 0 : amount,
            currency,
            card: request.card as CardDetails,
            saveCard: tokenize || link.terms.recurringProcessingModel !== null,
            recurringProcessingModel: link.terms.recurringProcessingModel,
            checkoutReference,
            merchantReference,
            signal,
          });
    const result = await pTimeout(call, { milliseconds: PROCESSOR_TIMEOUT_MS });
    // A saved card on Paylink's own page is the sandbox's, which never wants the shopper; if a
    // processor did, nothing here could send them: an unknown outcome, reversed below.
    if (result.approved === "shopper") throw new Error("the processor wants the shopper for a saved-card payment on the card form");
    answer = result;
  } catch (error) {
    // Never log the error object whole: a processor client might put the request in it.
    deps.log.warn({ checkoutReference, paymentLinkReference: link.reference, error: errorName(error) }, "payment processor call failed");
    // The outcome is unknown: the card may have been charged. Undo the attempt before saying
    // "not charged"; if that cannot be confirmed, keep the slot and let the reconciler finish it.
    if (!(await reverseUnknownAttempt(deps, checkoutReference, saved?.token))) return { kind: "unconfirmed" };
  }

  const outcome = processorOutcome(answer);
  let recorded: RecordedOutcome | undefined;
  try {
    const mail = { language: request.language, publicBaseUrl: deps.publicBaseUrl };
    recorded = await recordWithRetry(deps, { checkoutReference, link, outcome, answer, reserved: reservation.attempt, mail });
  } catch (error) {
    // The answer's payfacReference is another payment's: it stays unrecorded, the attempt
    // unknown, and the reconciler reverses it; the shopper is told the payment is not confirmed.
    if (isUniqueViolation(error)) return { kind: "unconfirmed" };
    throw error;
  }
  // Already finished by another post of this attempt: report that result.
  if (!recorded) return awaitEarlierAttempt(deps, { checkoutReference, linkReference: link.reference });
  notifyWebhookWorker();
  notifyMailWorker();
  deps.log.info({ checkoutReference, paymentLinkReference: link.reference, result: recorded.recorded }, "checkout submission recorded");

  const { submission, voidReason } = recorded;
  switch (recorded.recorded) {
    case "approved":
      return { kind: "approved", submission };
    case "declined":
      return { kind: "declined", reason: submission.reason ?? "Refused", submission };
    case "failed":
      return { kind: "failed" };
    case "voided": {
      const reason = voidReason ?? "Sold out";
      if (reason === "Reversed") {
        // The reconciler had the processor confirm this attempt reversed while this instance was
        // stalled (longer than the reservation): an approval now means the processor broke its
        // contract or our clocks lie. Not a sale; an operator must check the charge is gone.
        deps.log.error(
          { checkoutReference, paymentLinkReference: link.reference, payfacReference: submission.payfacReference },
          "ALERT: approval arrived for a payment attempt already reversed and abandoned; recorded as failed, its cancel is owed",
        );
      }
      // The cancel is owed (flagged in the same transaction as the result); the reconciler
      // retries it if the processor does not confirm now.
      if (submission.payfacReference) await cancelVoidedApproval(deps, checkoutReference, submission.payfacReference);
      return { kind: "voided", reason };
    }
  }
}

function processorOutcome(answer: AuthorizeResult | undefined): ProcessorOutcome {
  if (!answer) return { kind: "failed", reason: "Processor unavailable" };
  const { payfacReference, cardBrand, cardUsage } = answer;
  return answer.approved
    ? { kind: "approved", payfacReference, authCode: answer.authCode, token: answer.token, cardBrand, cardUsage }
    : { kind: "declined", payfacReference, reason: answer.reason, cardBrand, cardUsage };
}

/**
 * The result must be written: the card may have been charged. A database hiccup is retried; if
 * the write still fails, the submission stays pending (its slot held) and the error names the
 * references an operator needs to reconcile it.
 */
async function recordWithRetry(deps: PayByLinkDeps, input: Parameters<typeof recordPaymentOutcome>[1]) {
  let lastError: unknown;
  for (const wait of RECORD_RETRY_DELAYS) {
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await recordPaymentOutcome(deps, input);
    } catch (error) {
      lastError = error;
      if (isUniqueViolation(error)) break; // a reference another payment holds: trying again cannot help
    }
  }
  const { outcome } = input;
  deps.log.error(
    {
      checkoutReference: input.checkoutReference,
      paymentLinkReference: input.link.reference,
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
  deps: PayByLinkDeps,
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
