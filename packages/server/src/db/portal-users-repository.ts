// A merchant's portal users as the portal manages them: roles, passwords, two-factor secrets and
// recovery codes, and the merchant's security settings (two-factor for everyone, support's refund
// limit). SQL only; who may change what is domain/portal/roles.ts.
import { createHash } from "node:crypto";
import type { Transaction } from "kysely";
import type { Role } from "../domain/portal/roles.ts";
import type { Database } from "./connect.ts";
import { roleOf } from "./portal-sessions-repository.ts";
import type { DB } from "./schema.ts";

export interface UserListEntry {
  userId: string;
  email: string;
  role: Role;
  twoFactorEnabled: boolean;
  createdAt: Date;
}

/** Recovery codes are long random values: a plain SHA-256 is enough to keep them from a table's reader. */
export const hashRecoveryCode = (code: string) => createHash("sha256").update(code).digest("hex");

export async function listMerchantUsers(db: Database, merchantId: string): Promise<UserListEntry[]> {
  const rows = await db
    .selectFrom("portal_users")
    .select(["id", "email", "role", "two_factor_enabled_at", "created_at"])
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    userId: row.id,
    email: row.email,
    role: roleOf(row.role),
    twoFactorEnabled: row.two_factor_enabled_at !== null,
    createdAt: row.created_at,
  }));
}

/** The merchant's user, or undefined (another merchant's user is none). */
export async function findMerchantUser(db: Database, merchantId: string, userId: string): Promise<UserListEntry | undefined> {
  return (await listMerchantUsers(db, merchantId)).find((user) => user.userId === userId);
}

/**
 * Locks the merchant's users against concurrent role changes until the transaction ends, and
 * says how many owners there are: two owners demoting each other at once cannot leave none.
 */
export async function lockOwners(trx: Database, merchantId: string): Promise<number> {
  await trx.selectFrom("merchants").select("id").where("id", "=", merchantId).forUpdate().execute();
  const row = await trx
    .selectFrom("portal_users")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("merchant_id", "=", merchantId)
    .where("role", "=", "owner")
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function setUserRole(db: Database, merchantId: string, userId: string, role: Role): Promise<void> {
  await db.updateTable("portal_users").set({ role }).where("merchant_id", "=", merchantId).where("id", "=", userId).execute();
}

/** Removes the user; their sessions and recovery codes go with them. */
export async function deleteUser(db: Database, merchantId: string, userId: string): Promise<void> {
  await db.deleteFrom("portal_users").where("merchant_id", "=", merchantId).where("id", "=", userId).execute();
}

/** Who a user is, by id alone: for the flows that start from a link rather than a session. */
export async function findUserById(
  db: Database,
  userId: string,
): Promise<{ userId: string; merchantId: string; email: string } | undefined> {
  const row = await db.selectFrom("portal_users").select(["id", "merchant_id", "email"]).where("id", "=", userId).executeTakeFirst();
  return row && { userId: row.id, merchantId: row.merchant_id, email: row.email };
}

export async function readPasswordHash(db: Database, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom("portal_users").select("password_hash").where("id", "=", userId).executeTakeFirst();
  return row?.password_hash;
}

export async function setPasswordHash(db: Database, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable("portal_users").set({ password_hash: passwordHash }).where("id", "=", userId).execute();
}

export interface TotpState {
  /** The secret sealed under the keyring: waiting for its first code, or enabled. */
  sealedSecret: string | null;
  enabled: boolean;
}

export async function readTotp(db: Database, userId: string): Promise<TotpState> {
  const row = await db
    .selectFrom("portal_users")
    .select(["totp_secret_sealed", "two_factor_enabled_at"])
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  return { sealedSecret: row.totp_secret_sealed, enabled: row.two_factor_enabled_at !== null };
}

/** A new secret waiting for its first code; never replaces an enabled one. */
export async function setPendingTotp(db: Database, userId: string, sealedSecret: string): Promise<void> {
  await db
    .updateTable("portal_users")
    .set({ totp_secret_sealed: sealedSecret, totp_last_step: null })
    .where("id", "=", userId)
    .where("two_factor_enabled_at", "is", null)
    .execute();
}

/**
 * Records that a code of time step `step` was accepted, only if no code of this or a later step
 * was: of two requests with the same code, at once or not, exactly one gets true.
 */
export async function acceptTotpStep(db: Database, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable("portal_users")
    .set({ totp_last_step: step })
    .where("id", "=", userId)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Turns two-factor sign-in on with these recovery codes (hashes), replacing any earlier ones. */
/** In the caller's transaction (with its audit entry): new recovery codes and two-factor on. */
export async function enableTotp(trx: Transaction<DB>, userId: string, now: Date, codeHashes: string[]): Promise<void> {
  await trx.deleteFrom("portal_recovery_codes").where("user_id", "=", userId).execute();
  await trx
    .insertInto("portal_recovery_codes")
    .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash })))
    .execute();
  await trx.updateTable("portal_users").set({ two_factor_enabled_at: now }).where("id", "=", userId).execute();
}

/** In the caller's transaction (with its audit entry): two-factor off, its secret and codes gone. */
export async function disableTotp(trx: Transaction<DB>, userId: string): Promise<void> {
  await trx.deleteFrom("portal_recovery_codes").where("user_id", "=", userId).execute();
  await trx
    .updateTable("portal_users")
    .set({ totp_secret_sealed: null, two_factor_enabled_at: null, totp_last_step: null })
    .where("id", "=", userId)
    .execute();
}

/** Uses up a recovery code: true once per code, however many requests bring it at once. */
export async function useRecoveryCode(db: Database, userId: string, code: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("portal_recovery_codes")
    .set({ used_at: now })
    .where("user_id", "=", userId)
    .where("code_hash", "=", hashRecoveryCode(code))
    .where("used_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countUnusedRecoveryCodes(db: Database, userId: string): Promise<number> {
  const row = await db
    .selectFrom("portal_recovery_codes")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function setRequireTwoFactor(db: Database, merchantId: string, required: boolean): Promise<void> {
  await db.updateTable("merchants").set({ require_two_factor: required }).where("id", "=", merchantId).execute();
}

/** Support's refund limit per currency, in minor units. */
export async function listRefundLimits(db: Database, merchantId: string): Promise<Array<{ currency: string; amount: number }>> {
  return db
    .selectFrom("merchant_refund_limits")
    .select(["currency", "amount"])
    .where("merchant_id", "=", merchantId)
    .orderBy("currency")
    .execute();
}

export async function findRefundLimit(db: Database, merchantId: string, currency: string): Promise<number | null> {
  const row = await db
    .selectFrom("merchant_refund_limits")
    .select("amount")
    .where("merchant_id", "=", merchantId)
    .where("currency", "=", currency)
    .executeTakeFirst();
  return row ? row.amount : null;
}

/** Sets (or, with null, removes) support's limit in a currency. */
export async function setRefundLimit(db: Database, merchantId: string, currency: string, amount: number | null): Promise<void> {
  if (amount === null) {
    await db.deleteFrom("merchant_refund_limits").where("merchant_id", "=", merchantId).where("currency", "=", currency).execute();
    return;
  }
  await db
    .insertInto("merchant_refund_limits")
    .values({ merchant_id: merchantId, currency, amount })
    .onConflict((oc) => oc.columns(["merchant_id", "currency"]).doUpdateSet({ amount }))
    .execute();
}
