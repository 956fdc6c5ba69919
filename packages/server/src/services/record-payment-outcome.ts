// Recording what the processor said about a checkout attempt: the one way a payment's result is
// written, whether it arrives with the shopper's request, from the reconciler, or (later) in the
// processor's own notification. The attempt and its link are read, the domain decides what the
// answer becomes, and one statement writes it all (db/reservations-repository.ts writeResult):
// the result, the link's counters, the payfacReference, the webhook and mail outbox rows commit together
// or not at all, locking the submission first and the link's row last.
import type { CheckoutLink } from "../db/checkout-repository.ts";
import { afterResult, findUnfinishedAttempt, type UnfinishedAttempt, writeResult } from "../db/reservations-repository.ts";
import type { SubmissionRecord } from "../db/submissions-repository.ts";
import { decidePayment, type ProcessorOutcome, type RecordedResult, type VoidReason } from "../domain/payments/payment-outcome.ts";
import { NO_PAYMENT_MAIL, type PaymentMail } from "../mail/outbox.ts";
import { paymentMail } from "../mail/payment-mail.ts";
import { errorName } from "../payments/error-name.ts";
import type { AuthorizeResult } from "../payments/processor.ts";
import type { Lang } from "../web/i18n.ts";
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
  /** The attempt as its reservation left it, when the caller holds it: saves reading it again. */
  reserved?: UnfinishedAttempt;
  /**
   * The checkout's language (the receipt's) and where the portal is (the "you got paid" link).
   * Without it (an outcome learnt away from the shopper's page) the link's culture is used.
   */
  mail?: { language: Lang; publicBaseUrl: string | null };
}

/**
 * Records the outcome of an attempt whose result is not written yet. Undefined when it already
 * was (another post of the attempt, or an earlier notification): nothing is written then. When
 * the attempt or its link changed between the read and the write (a link closed before the
 * sale), nothing was written and the outcome is decided again on what stands now.
 */
export async function recordPaymentOutcome(
  deps: Pick<ServiceDeps, "db" | "now"> & Partial<Pick<ServiceDeps, "log">>,
  input: PaymentOutcome,
): Promise<RecordedOutcome | undefined> {
  const { checkoutReference, link, outcome, answer } = input;
  // The reservation's copy is tried first: the write checks the attempt is still pending and, for
  // a sale, that the link is still open, so a stale copy writes nothing and is read again. A void
  // would be written without that check, so it is only ever decided on a fresh read.
  let snapshot = input.reserved;
  for (;;) {
    const attempt = snapshot ?? (await findUnfinishedAttempt(deps.db, checkoutReference));
    if (!attempt) return undefined;
    const now = deps.now();
    const decision = decidePayment(outcome, attempt.submission.state, attempt.link, now);
    const fromSnapshot = snapshot !== undefined;
    snapshot = undefined;
    if (fromSnapshot && decision.recorded === "voided") continue;
    const submission = afterResult({ attempt: attempt.submission, decision, outcome, now });
    const events = paymentResultEvents(link, submission, decision.recorded, answer);
    const mail = mailOf(deps, link, submission, decision.recorded, input);
    if (await writeResult(deps.db, { attempt: attempt.submission, decision, outcome, merchantId: link.merchantId, events, mail, now })) {
      return { recorded: decision.recorded, submission, voidReason: decision.voidReason };
    }
  }
}

/** The result's mail; a message that cannot be rendered is left out, never the result (a mail failure never fails a payment). */
function mailOf(
  deps: Partial<Pick<ServiceDeps, "log">>,
  link: CheckoutLink,
  submission: SubmissionRecord,
  recorded: RecordedResult,
  input: PaymentOutcome,
): PaymentMail {
  try {
    return paymentMail(link, submission, recorded, input.mail ?? { language: link.terms.culture, publicBaseUrl: null });
  } catch (error) {
    deps.log?.error(
      { checkoutReference: input.checkoutReference, error: errorName(error) },
      "could not render a payment's e-mail; the payment is recorded without it",
    );
    return NO_PAYMENT_MAIL;
  }
}
