// A user leaves the merchant (docs/portal.md#users-and-roles): the row goes, and with it every
// session (so they are signed out everywhere at once) and their recovery codes. The last owner
// stays; removing oneself is not done here (it would end the page's own session mid-request).
import type { Database } from "../db/connect.ts";
import { deleteUser, findMerchantUser, lockOwners } from "../db/portal-users-repository.ts";
import type { Actor as AuditActor } from "../domain/audit/actor.ts";
import { leavesAnOwner, mayManageUser } from "../domain/portal/roles.ts";
import { recordAudit } from "./audit.ts";
import type { Manager } from "./change-user-role.ts";

export type RemoveOutcome = "removed" | "notFound" | "notAllowed" | "lastOwner" | "self";

/** Removes `userId` from the merchant; the removal and its audit entry (by `who`) commit together. */
export async function removePortalUser(db: Database, actor: Manager, userId: string, who: AuditActor): Promise<RemoveOutcome> {
  if (userId === actor.userId) return "self";
  return db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, actor.merchantId);
    const target = await findMerchantUser(trx, actor.merchantId, userId);
    if (!target) return "notFound";
    if (!mayManageUser(actor.role, target.role, null)) return "notAllowed";
    if (!leavesAnOwner(owners, target.role, null)) return "lastOwner";
    await deleteUser(trx, actor.merchantId, userId);
    await recordAudit(trx, {
      merchantId: actor.merchantId,
      actor: who,
      action: "user.remove",
      object: { type: "user", id: userId },
      details: { email: target.email, role: target.role },
    });
    return "removed";
  });
}
