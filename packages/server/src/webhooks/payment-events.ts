// What a checkout result tells the merchant's webhook endpoints: the payment messages built from
// the link, the recorded submission and the processor's answer. Pure; the checkout writes them to
// the outbox in the transaction that records the result.
import type { CheckoutLink } from "../db/checkout-repository.ts";
import type { SubmissionRecord } from "../db/submissions-repository.ts";
import type { RecordedResult } from "../domain/payments/payment-outcome.ts";
import type { AuthorizeResult } from "../payments/processor.ts";
import type { UnsignedPaymentMessage, WebhookEventType } from "./outbox.ts";

export interface PaymentEvent {
  eventType: WebhookEventType;
  message: UnsignedPaymentMessage;
}

/** What the messages take from the recorded attempt. */
export type AttemptFacts = Pick<
  SubmissionRecord,
  "checkoutReference" | "amount" | "currency" | "token" | "reason" | "cardMasked" | "cardLast4" | "cardExpiry"
>;

/**
 * The webhook messages of a recorded checkout result: Authorization for a payment, Tokenization
 * for a saved card (a pay link with a recurringProcessingModel produces both). A processor that
 * never answered produced no processor transaction, so it produces no message.
 */
export function paymentResultEvents(
  link: CheckoutLink,
  submission: AttemptFacts,
  recorded: RecordedResult,
  result: AuthorizeResult | undefined,
): PaymentEvent[] {
  if (!result || recorded === "failed") return [];
  const tokenize = link.terms.type === "TokenizeByLink";
  const success = recorded === "approved";
  const reason =
    success && result.approved
      ? `${result.authCode}:${submission.cardLast4 ?? ""}:${submission.cardExpiry ?? ""}`
      : (submission.reason ?? (result.approved ? "Sold out" : result.reason));
  const message = (eventType: WebhookEventType, amount: number, token: string | null): PaymentEvent => {
    const additionalData: Record<string, string> = { eventType };
    const put = (key: string, value: string | null | undefined) => {
      if (value !== null && value !== undefined && value !== "") additionalData[key] = value;
    };
    put("cardNumber", submission.cardMasked);
    put("cardSummary", submission.cardLast4);
    put("cardUsage", result.cardUsage);
    put("cardExpiryDate", submission.cardExpiry);
    put("paymentMethod", result.paymentMethod);
    put("threeDAuthenticated", String(result.threeDAuthenticated));
    if (success && result.approved) put("authCode", result.authCode);
    if (eventType === "Tokenization") put("token", token);
    if (!link.session) {
      put("paymentLinkIdentifier", link.reference);
      put("paymentLinkDescription", link.terms.description);
    }
    return {
      eventType,
      message: {
        // A session's messages name the session and the shop's order (docs/webhooks.md#sessions).
        checkoutReference: link.session ? link.reference : submission.checkoutReference,
        payfacReference: result.payfacReference,
        merchantReference: link.session ? link.session.orderReference : link.reference,
        amount: String(amount),
        currency: submission.currency,
        reason,
        success: String(success),
        additionalData,
      },
    };
  };

  if (tokenize) return [message("Tokenization", 0, success ? submission.token : null)];
  const events = [message("Authorization", submission.amount, null)];
  if (success && submission.token) events.push(message("Tokenization", submission.amount, submission.token));
  return events;
}
