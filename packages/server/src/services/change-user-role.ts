// A merchant's user gets another role (docs/portal.md#users-and-roles). Who may give which role is
// the domain's rule; the merchant's owners are counted under a lock, so no pair of changes at
// once leaves the merchant without an owner.
import type { Database } from "../db/connect.ts";
import { findMerchantUser, lockOwners, setUserRole } from "../db/portal-users-repository.ts";
import { leavesAnOwner, mayManageUser, type Role } from "../domain/portal/roles.ts";

export type RoleChangeOutcome = "changed" | "notFound" | "notAllowed" | "lastOwner" | "sameRole";

export interface Actor {
  merchantId: string;
  userId: string;
  role: Role;
}

export async function changeUserRole(db: Database, actor: Actor, userId: string, role: Role): Promise<RoleChangeOutcome> {
  return db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, actor.merchantId);
    const target = await findMerchantUser(trx, actor.merchantId, userId);
    if (!target) return "notFound";
    if (target.role === role) return "sameRole";
    if (!mayManageUser(actor.role, target.role, role)) return "notAllowed";
    if (!leavesAnOwner(owners, target.role, role)) return "lastOwner";
    await setUserRole(trx, actor.merchantId, userId, role);
    return "changed";
  });
}
