// A saved-card charge that waited for its shopper (3-D Secure, docs/processors.md#after-the-sale):
// the processor's notification about it decides it, recorded by the same use case as an answer
// that came at once. An approval for a charge Paylink already gave up on (the shopper came too
// late, or its answer was lost and it was reversed) is reversed at the processor: nothing stays
// charged that is not a payment.
import { findSavedCard } from "../db/saved-cards-repository.ts";
import { findTokenPayment } from "../db/token-payments-repository.ts";
import { notifyMailWorker } from "../mail/outbox.ts";
import type { AttemptNotification, HostedPaymentProcessor } from "../payments/hosted.ts";
import { type AuthorizeResult, type CardUsage, tokenChargeReversalReference } from "../payments/processor.ts";
import { notifyWebhookWorker } from "../webhooks/outbox.ts";
import { recordTokenChargeAnswer } from "./charge-token.ts";
import type { ServiceDeps } from "./deps.ts";

/** False when the notification is about no saved-card charge of this terminal. */
export async function settleNotifiedTokenCharge(
  deps: ServiceDeps,
  processor: HostedPaymentProcessor,
  terminalIdentifier: string,
  { checkoutReference, outcome }: AttemptNotification,
): Promise<boolean> {
  const charge = await findTokenPayment(deps.db, checkoutReference);
  // Only this terminal's charges: another terminal's key never decides them.
  if (!charge || charge.terminalIdentifier !== terminalIdentifier) return false;
  if (outcome.kind !== "approved" && outcome.kind !== "declined") return true;
  const reverseApproval = async (payfacReference: string) => {
    deps.log.warn({ checkoutReference, payfacReference }, "approval of a saved-card charge given up on; reversing it");
    await processor.cancelApproval(payfacReference, tokenChargeReversalReference(checkoutReference));
  };
  if (charge.state === "failed" && outcome.kind === "approved") {
    await reverseApproval(outcome.payfacReference);
    return true;
  }
  // Charges answered at once are recorded by their request; only one that waits for its shopper is decided here.
  if (charge.state !== "pending" || charge.shopperRedirectUrl === null) return true;
  const card = await findSavedCard(deps.db, charge.merchantId, charge.token);
  if (!card) return true;
  const facts = {
    payfacReference: outcome.payfacReference,
    cardBrand: outcome.card.brand ?? card.cardBrand,
    cardUsage: (outcome.card.usage ?? card.cardUsage ?? "Credit") as CardUsage,
    paymentMethod: outcome.card.brand ?? card.cardBrand,
    threeDAuthenticated: true,
  };
  const result: AuthorizeResult =
    outcome.kind === "approved"
      ? { approved: true, authCode: outcome.authCode, token: null, ...facts }
      : { approved: false, reason: outcome.reason, ...facts };
  const recorded = await recordTokenChargeAnswer(deps, card, checkoutReference, result);
  // Given up on by the sweep meanwhile: an approval must not stay charged.
  if (!recorded && outcome.kind === "approved" && (await findTokenPayment(deps.db, checkoutReference))?.state === "failed") {
    await reverseApproval(outcome.payfacReference);
  }
  if (recorded) {
    notifyWebhookWorker();
    notifyMailWorker();
    deps.log.info({ checkoutReference, state: recorded.state }, "saved-card charge decided after the shopper's authentication");
  }
  return true;
}
