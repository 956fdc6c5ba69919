// Change a payment link (docs/api.md#update): the update rules (domain/links/update.ts) against the
// link as stored, for the API, the portal's form and the portal's "enable" button alike.
import { findLinkForUpdate, saveLinkChange } from "../db/links-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { changedFields } from "../domain/audit/entry.ts";
import { applyUpdate, type UpdateLinkRequest } from "../domain/links/update.ts";
import { recordAudit } from "./audit.ts";
import type { ServiceDeps } from "./deps.ts";
import { checkTheme, terminalAccepting } from "./merchant-references.ts";

/** False when the merchant has no such link. */
export async function updateLink(deps: ServiceDeps, merchantId: string, actor: Actor, request: UpdateLinkRequest): Promise<boolean> {
  // The row stays locked from read to write, so a sale cannot land between the rules' check
  // (e.g. "price frozen after a sale") and the change.
  return deps.db.transaction().execute(async (trx) => {
    const current = await findLinkForUpdate(trx, merchantId, request.paymentLinkReference);
    if (!current) return false;
    const change = applyUpdate(current, request, deps.now());
    if (change.terms.currency !== current.terms.currency) {
      await terminalAccepting(trx, merchantId, change.terms.terminalIdentifier, change.terms.currency);
    }
    if (change.terms.themeKey !== current.terms.themeKey) await checkTheme(trx, merchantId, change.terms.themeKey);
    await saveLinkChange(trx, current.reference, change.terms, change.disabled);
    await recordAudit(trx, {
      merchantId,
      actor,
      action: "link.update",
      object: { type: "payment-link", id: current.reference },
      details: { fields: changedFields(request, ["paymentLinkReference"]) },
    });
    return true;
  });
}
