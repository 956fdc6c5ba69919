// Disable a saved card (docs/api.md#disable-a-saved-card): later charges of it are 409 3003.
// Idempotent; the call that records the disable writes the one TokenDisabled webhook in the same
// transaction, so repeated or racing calls never send a second one.
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { findSavedCard, markTokenDisabled } from "../db/saved-cards-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { AppError } from "../domain/errors.ts";
import { tokenDisabledEvent } from "../webhooks/after-sale-events.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import { recordAudit } from "./audit.ts";
import type { ServiceDeps } from "./deps.ts";

/** True when this call disabled the card; false when it already was. `keyed`: the Idempotency-Key's answer, stored with the disable. */
export async function disableSavedCard(
  deps: ServiceDeps,
  merchantId: string,
  actor: Actor,
  token: string,
  keyed?: KeyedEffect<boolean>,
): Promise<boolean> {
  const card = token.length <= 64 ? await findSavedCard(deps.db, merchantId, token) : undefined;
  if (!card) throw new AppError("NotFound", `No saved card with tokenValue ${JSON.stringify(token)} was found.`);
  const disabledNow = await deps.db.transaction().execute(async (trx) => {
    const inserted = await markTokenDisabled(trx, merchantId, token);
    if (inserted) {
      const event = tokenDisabledEvent(card);
      await enqueuePaymentWebhook(trx, merchantId, event.eventType, event.message);
    }
    await recordAudit(trx, {
      merchantId,
      actor,
      action: "token.disable",
      object: { type: "token", id: token },
      details: { last4: card.cardLast4, alreadyDisabled: !inserted },
    });
    await keyed?.answered(trx, inserted);
    return inserted;
  });
  if (disabledNow) {
    notifyWebhookWorker();
    deps.log.info({ checkoutReference: card.checkoutReference }, "saved card disabled");
  }
  return disabledNow;
}
