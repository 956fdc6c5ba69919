// Disable a payment link at once (docs/api.md#disable): idempotent; its submissions and saved
// cards are kept. The disable and its audit-log entry commit together.
import { disableLink as markLinkDisabled } from "../db/links-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { recordAudit } from "./audit.ts";
import type { ServiceDeps } from "./deps.ts";

/** False when the merchant has no such link. */
export async function disableLink(deps: ServiceDeps, merchantId: string, actor: Actor, paymentLinkReference: string): Promise<boolean> {
  const found = await deps.db.transaction().execute(async (trx) => {
    if (!(await markLinkDisabled(trx, merchantId, paymentLinkReference))) return false;
    await recordAudit(trx, { merchantId, actor, action: "link.disable", object: { type: "payment-link", id: paymentLinkReference } });
    return true;
  });
  if (found) deps.log.info({ paymentLinkReference }, "payment link disabled");
  return found;
}
