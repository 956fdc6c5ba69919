// A merchant's user gets another role (docs/portal.md#users-and-roles). Who may give which role is
// the domain's rule; the merchant's owners are counted under a lock, so no pair of changes at
// once leaves the merchant without an owner.
import type { Database } from "../db/connect.ts";
import { findMerchantUser, lockOwners, setUserRole } from "../db/portal-users-repository.ts";
import type { Actor as AuditActor } from "../domain/audit/actor.ts";
import { leavesAnOwner, mayManageUser, type Role } from "../domain/portal/roles.ts";
import { recordAudit } from "./audit.ts";

export type RoleChangeOutcome = "changed" | "notFound" | "notAllowed" | "lastOwner" | "sameRole";

/** The signed-in user who manages the others: their merchant, id and role decide what they may do. */
export interface Manager {
  merchantId: string;
  userId: string;
  role: Role;
}

/** Gives `userId` the role `role`; the change and its audit entry (by `who`) commit together. */
export async function changeUserRole(
  db: Database,
  actor: Manager,
  userId: string,
  role: Role,
  who: AuditActor,
): Promise<RoleChangeOutcome> {
  return db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, actor.merchantId);
    const target = await findMerchantUser(trx, actor.merchantId, userId);
    if (!target) return "notFound";
    if (target.role === role) return "sameRole";
    if (!mayManageUser(actor.role, target.role, role)) return "notAllowed";
    if (!leavesAnOwner(owners, target.role, role)) return "lastOwner";
    await setUserRole(trx, actor.merchantId, userId, role);
    await recordAudit(trx, {
      merchantId: actor.merchantId,
      actor: who,
      action: "user.role-change",
      object: { type: "user", id: userId },
      details: { email: target.email, from: target.role, to: role },
    });
    return "changed";
  });
}
