// Charge a saved card (docs/api.md#charge-a-saved-card): record the charge pending, call the
// processor outside any transaction, record its answer with the Authorization webhook rows in one
// transaction. An unknown outcome is reversed at the processor and answered with 503 5002: it is
// never reported as Authorised and never becomes a payment.
//
//   insertPendingTokenPayment ──► processor.chargeToken ──► recordTokenPayment (+ outbox)
//   (one statement)               (no trx, time-out)        (short trx)
import pTimeout from "p-timeout";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { findSavedCard, type SavedCard } from "../db/saved-cards-repository.ts";
import {
  awaitShopper,
  findTokenPayment,
  insertPendingTokenPayment,
  recordTokenPayment,
  type TokenPaymentRecord,
} from "../db/token-payments-repository.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { AppError } from "../domain/errors.ts";
import type { RecurringProcessingModel } from "../domain/links/types.ts";
import { checkChargeAmount, checkMerchantReference } from "../domain/payments/rules.ts";
import { newCheckoutReference } from "../ids.ts";
import { notifyMailWorker, queueMail } from "../mail/outbox.ts";
import { tokenChargeReceipt } from "../mail/payment-mail.ts";
import { errorName } from "../payments/error-name.ts";
import type { AuthorizeResult, TokenChargeResult } from "../payments/processor.ts";
import { tokenPaymentEvent } from "../webhooks/after-sale-events.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import { recordAudit } from "./audit.ts";
import { AFTER_SALE_PROCESSOR_TIMEOUT_MS, type AfterSaleServiceDeps, type ServiceDeps } from "./deps.ts";
import { terminalAccepting } from "./merchant-references.ts";
import { reverseUnknownCharge } from "./reverse-unknown-charge.ts";
import { afterAuthenticationUrl } from "./shopper-authentication.ts";

export interface TokenChargeInput {
  terminalIdentifier: string;
  amount: number;
  currency: string;
  reference: string;
  tokenDetails: { tokenValue: string; recurringProcessingModel?: RecurringProcessingModel | null };
  shopperIp?: string | null;
  origin?: string | null;
  channel?: string | null;
  returnUrl?: string | null;
}

export interface TokenCharge {
  /** RedirectShopper: the processor wants the shopper first (3-D Secure); the payment stays pending. */
  resultCode: "Authorised" | "Refused" | "RedirectShopper";
  payment: TokenPaymentRecord;
  /** The card brand code the processor reported (additionalData.paymentMethod). */
  paymentMethod: string;
}

/**
 * `keyed`: the Idempotency-Key waits on the charge from its pending insert (a retry meanwhile is
 * 409 3007, never a second processor call) and gets its answer with the result
 * (docs/api.md#idempotency).
 */
export async function chargeSavedCard(
  deps: AfterSaleServiceDeps,
  merchantId: string,
  actor: Actor,
  input: TokenChargeInput,
  keyed?: KeyedEffect<TokenCharge>,
): Promise<TokenCharge> {
  const { amount, currency } = checkChargeAmount(input.amount, input.currency);
  const reference = checkMerchantReference("reference", input.reference);
  const terminal = await terminalAccepting(deps.db, merchantId, input.terminalIdentifier, currency);
  // The terminal's processor charges the card it saved (409 for one that cannot yet).
  const processor = await deps.processors.afterSaleFor(terminal.terminalIdentifier, deps.processor);
  const token = input.tokenDetails.tokenValue;
  const card = await findSavedCard(deps.db, merchantId, token);
  if (!card) throw new AppError("NotFound", `No saved card with tokenValue ${JSON.stringify(token)} was found.`);
  const disabled = () => new AppError("StateConflict", `The saved card ${token} is disabled and cannot be charged.`);
  if (card.disabled) throw disabled();

  const checkoutReference = newCheckoutReference();
  const recurringProcessingModel = (input.tokenDetails.recurringProcessingModel ??
    card.recurringProcessingModel) as RecurringProcessingModel | null;
  const facts = { brand: card.cardBrand, masked: card.cardMasked, last4: card.cardLast4, expiry: card.cardExpiry, usage: card.cardUsage };
  const inserted = await insertPendingTokenPayment(
    deps.db,
    {
      checkoutReference,
      merchantId,
      terminalIdentifier: terminal.terminalIdentifier,
      token,
      merchantReference: reference,
      amount,
      currency,
      recurringProcessingModel,
      shopperIp: input.shopperIp ?? null,
      origin: input.origin ?? null,
      channel: input.channel ?? null,
      returnUrl: input.returnUrl ?? null,
      card: facts,
    },
    // The request is recorded with the pending charge; its outcome is the payment's state.
    async (trx) => {
      await recordAudit(trx, {
        merchantId,
        actor,
        action: "token.charge",
        object: { type: "payment", id: checkoutReference },
        details: { token, last4: card.cardLast4, amount, currency, reference },
      });
      await keyed?.started(trx, checkoutReference);
    },
  );
  if (!inserted) throw disabled();

  let result: TokenChargeResult;
  try {
    const signal = AbortSignal.timeout(AFTER_SALE_PROCESSOR_TIMEOUT_MS);
    const call = processor.chargeToken({
      token,
      card: facts,
      amount,
      currency,
      recurringProcessingModel,
      checkoutReference,
      merchantReference: reference,
      returnUrl: afterAuthenticationUrl(deps.publicBaseUrl, { checkoutReference, returnUrl: input.returnUrl ?? null }),
      signal,
    });
    // Stop waiting even if the processor's client ignores the signal.
    result = await pTimeout(call, { milliseconds: AFTER_SALE_PROCESSOR_TIMEOUT_MS });
  } catch (error) {
    deps.log.warn({ checkoutReference, error: errorName(error) }, "saved-card charge: the processor did not answer");
    const reversed = await reverseUnknownCharge(deps, checkoutReference);
    throw new AppError(
      "ProcessorUnavailable",
      reversed
        ? `The card processor did not answer; the charge ${checkoutReference} was reversed and nothing was charged. Try again later.`
        : `The card processor did not answer; the charge ${checkoutReference} will be reversed and never becomes a payment. Try again later.`,
      { "retry-after": "30" },
    );
  }

  if (result.approved === "shopper") {
    // 3-D Secure: the charge stays pending with the processor's page; its notification decides it.
    const waiting = await awaitShopper(deps.db, checkoutReference, result.redirectUrl, async (trx, payment) => {
      await keyed?.answered(trx, { resultCode: "RedirectShopper", payment, paymentMethod: card.cardBrand });
    });
    if (!waiting) throw await finishedBeforeAnswer(deps, checkoutReference);
    deps.log.info({ checkoutReference }, "saved-card charge waits for the shopper's authentication");
    return { resultCode: "RedirectShopper", payment: waiting, paymentMethod: card.cardBrand };
  }
  const answered = result;
  const recorded = await recordTokenChargeAnswer(deps, card, checkoutReference, answered, keyed).catch(async (error: unknown) => {
    if (!isUniqueViolation(error)) throw error;
    // The processor answered with a payfacReference another payment holds: this answer
    // cannot be a payment. Undo it like an unknown outcome; an operator must ask the processor why.
    deps.log.error(
      { checkoutReference, payfacReference: answered.payfacReference },
      "ALERT: the processor answered a saved-card charge with a payfacReference another payment holds; reversing it",
    );
    const reversed = await reverseUnknownCharge(deps, checkoutReference);
    throw new AppError(
      "ProcessorUnavailable",
      `The card processor's answer could not be recorded; the charge ${checkoutReference} ${reversed ? "was reversed" : "will be reversed"} and nothing stays charged.`,
      { "retry-after": "30" },
    );
  });
  if (!recorded) throw await finishedBeforeAnswer(deps, checkoutReference);
  notifyWebhookWorker();
  notifyMailWorker();
  deps.log.info({ checkoutReference, payfacReference: recorded.payfacReference, state: recorded.state }, "saved card charged");
  return { resultCode: answered.approved ? "Authorised" : "Refused", payment: recorded, paymentMethod: answered.paymentMethod };
}

/**
 * Records a processor's final answer to a saved-card charge — from its reply, or from its
 * notification after 3-D Secure — with the Authorization webhook, the shopper's receipt and the
 * Idempotency-Key's answer, in one transaction. Undefined when the charge was no longer pending.
 */
export async function recordTokenChargeAnswer(
  deps: ServiceDeps,
  card: SavedCard,
  checkoutReference: string,
  result: AuthorizeResult,
  keyed?: KeyedEffect<TokenCharge>,
): Promise<TokenPaymentRecord | undefined> {
  const facts = { payfacReference: result.payfacReference, cardBrand: result.cardBrand, cardUsage: result.cardUsage };
  const outcome = result.approved
    ? { kind: "approved" as const, authCode: result.authCode, ...facts }
    : { kind: "declined" as const, reason: result.reason, ...facts };
  const resultCode = result.approved ? ("Authorised" as const) : ("Refused" as const);
  return recordTokenPayment(deps.db, checkoutReference, outcome, async (trx, payment) => {
    const event = tokenPaymentEvent(payment, result);
    await enqueuePaymentWebhook(trx, payment.merchantId, event.eventType, event.message);
    // The shopper's receipt commits with the result: never one for a charge that was not recorded.
    const receipt = tokenChargeReceipt(card, payment, result.approved ? result.authCode : null);
    if (receipt) await queueMail(trx, receipt);
    await keyed?.answered(trx, { resultCode, payment, paymentMethod: result.paymentMethod });
  });
}

/** Only the reconciler finishes a pending charge, and only long after a request's deadline. */
async function finishedBeforeAnswer(deps: AfterSaleServiceDeps, checkoutReference: string): Promise<AppError> {
  const payment = await findTokenPayment(deps.db, checkoutReference);
  deps.log.error(
    { checkoutReference, state: payment?.state },
    "saved-card charge was finished by the reconciler before its answer was recorded",
  );
  return new AppError(
    "ProcessorUnavailable",
    `The charge ${checkoutReference} was reversed before the processor's answer arrived; nothing was charged.`,
  );
}
