// Invitations and password resets (docs/portal.md#invitations). SQL only: which link may be used is
// domain/portal/one-time-links.ts. Tables hold the token's SHA-256, never the token; a link is used
// by one conditional UPDATE, so of two requests with it at once exactly one succeeds.
import { createHash } from "node:crypto";
import { sql } from "kysely";
import type { Role } from "../domain/portal/roles.ts";
import type { Lang } from "../web/i18n.ts";
import type { Database } from "./connect.ts";
import { roleOf } from "./portal-sessions-repository.ts";

export const hashLinkToken = (token: string) => createHash("sha256").update(token).digest("hex");

export interface Invitation {
  invitationId: string;
  merchantId: string;
  email: string;
  role: Role;
  language: Lang;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

const INVITATION_COLUMNS = [
  "id",
  "merchant_id",
  "email",
  "role",
  "language",
  "invited_by",
  "created_at",
  "expires_at",
  "accepted_at",
  "revoked_at",
] as const;

function toInvitation(row: {
  id: string;
  merchant_id: string;
  email: string;
  role: string;
  language: string;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}): Invitation {
  return {
    invitationId: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    role: roleOf(row.role),
    language: row.language === "is" ? "is" : "en",
    invitedBy: row.invited_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.accepted_at,
    revokedAt: row.revoked_at,
  };
}

export async function insertInvitation(
  db: Database,
  invitation: Omit<Invitation, "createdAt" | "usedAt" | "revokedAt">,
  token: string,
): Promise<void> {
  await db
    .insertInto("portal_invitations")
    .values({
      id: invitation.invitationId,
      merchant_id: invitation.merchantId,
      email: invitation.email,
      role: invitation.role,
      language: invitation.language,
      invited_by: invitation.invitedBy,
      token_hash: hashLinkToken(token),
      expires_at: invitation.expiresAt,
    })
    .execute();
}

/** The merchant's invitations neither accepted nor revoked (expired ones too: they can be sent again). */
export async function listOpenInvitations(db: Database, merchantId: string): Promise<Invitation[]> {
  const rows = await db
    .selectFrom("portal_invitations")
    .select(INVITATION_COLUMNS)
    .where("merchant_id", "=", merchantId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toInvitation);
}

export async function findMerchantInvitation(db: Database, merchantId: string, invitationId: string): Promise<Invitation | undefined> {
  const row = await db
    .selectFrom("portal_invitations")
    .select(INVITATION_COLUMNS)
    .where("merchant_id", "=", merchantId)
    .where("id", "=", invitationId)
    .executeTakeFirst();
  return row && toInvitation(row);
}

/** The invitation of a link, with the merchant's name for the page that accepts it. */
export async function findInvitationByToken(db: Database, token: string): Promise<(Invitation & { merchantName: string }) | undefined> {
  const row = await db
    .selectFrom("portal_invitations as i")
    .innerJoin("merchants as m", "m.id", "i.merchant_id")
    .select(INVITATION_COLUMNS.map((column) => `i.${column}` as const))
    .select("m.name")
    .where("i.token_hash", "=", hashLinkToken(token))
    .executeTakeFirst();
  return row && { ...toInvitation(row), merchantName: row.name };
}

/** An open invitation of this merchant to this address (letter case aside), if there is one. */
export async function findOpenInvitationTo(db: Database, merchantId: string, email: string): Promise<Invitation | undefined> {
  const row = await db
    .selectFrom("portal_invitations")
    .select(INVITATION_COLUMNS)
    .where("merchant_id", "=", merchantId)
    .where(sql<string>`lower(email)`, "=", email.toLowerCase())
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return row && toInvitation(row);
}

/** An UPDATE of the merchant's invitation while it is open (neither accepted nor revoked). */
const updateOpenInvitation = (db: Database, merchantId: string, invitationId: string) =>
  db
    .updateTable("portal_invitations")
    .where("merchant_id", "=", merchantId)
    .where("id", "=", invitationId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null);

/** A new token and validity for an open invitation: the old link stops working. False: not open. */
export async function renewInvitation(db: Database, merchantId: string, invitationId: string, token: string, expiresAt: Date) {
  const result = await updateOpenInvitation(db, merchantId, invitationId)
    .set({ token_hash: hashLinkToken(token), expires_at: expiresAt })
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function revokeInvitation(db: Database, merchantId: string, invitationId: string, now: Date): Promise<boolean> {
  const result = await updateOpenInvitation(db, merchantId, invitationId).set({ revoked_at: now }).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Marks the invitation accepted if it is still usable at `now`; false when another request was first. */
export async function takeInvitation(db: Database, invitationId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("portal_invitations")
    .set({ accepted_at: now })
    .where("id", "=", invitationId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface PasswordReset {
  userId: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function insertPasswordReset(db: Database, userId: string, token: string, expiresAt: Date): Promise<void> {
  await db
    .insertInto("portal_password_resets")
    .values({ token_hash: hashLinkToken(token), user_id: userId, expires_at: expiresAt })
    .execute();
}

export async function findPasswordReset(db: Database, token: string): Promise<PasswordReset | undefined> {
  const row = await db
    .selectFrom("portal_password_resets")
    .select(["user_id", "expires_at", "used_at"])
    .where("token_hash", "=", hashLinkToken(token))
    .executeTakeFirst();
  return row && { userId: row.user_id, expiresAt: row.expires_at, usedAt: row.used_at };
}

/**
 * Uses the reset link if it is still usable at `now`; every other open link of the user dies
 * with it, so an older mail cannot change the new password. False when it was not usable.
 */
export async function takePasswordReset(db: Database, token: string, userId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("portal_password_resets")
    .set({ used_at: now })
    .where("token_hash", "=", hashLinkToken(token))
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await db.updateTable("portal_password_resets").set({ used_at: now }).where("user_id", "=", userId).where("used_at", "is", null).execute();
  return true;
}
