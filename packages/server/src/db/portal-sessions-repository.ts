// Portal users, their sessions and the failed sign-ins the brake counts. Sessions live in the
// database so they survive a restart and every instance behind a load balancer knows them; the
// cookie holds a random value and the table only its SHA-256, so a leaked table signs no one in.
import { createHash, randomBytes } from "node:crypto";
import { sql } from "kysely";
import { isRole, type Role } from "../domain/portal/roles.ts";
import type { Database } from "./connect.ts";

export interface PortalUser {
  userId: string;
  merchantId: string;
  email: string;
  passwordHash: string;
  role: Role;
  twoFactorEnabled: boolean;
}

/**
 * The signed-in person of a portal request: the one place the portal (and whatever records who
 * did what) learns who is acting, for which merchant, in which role.
 */
export interface PortalSession {
  /** The session's public id (the session list ends sessions by it). */
  sessionId: string;
  userId: string;
  merchantId: string;
  email: string;
  merchantName: string;
  csrfToken: string;
  role: Role;
  twoFactorEnabled: boolean;
  /** The merchant's owners require two-factor sign-in of everyone. */
  twoFactorRequired: boolean;
  /** The password was right, the second factor is still to come: the session can do nothing else. */
  secondFactorPending: boolean;
}

/** Where a session was started from, for the session list. */
export interface SessionOrigin {
  address: string;
  userAgent: string;
}

/** A role read from the database; a value the migration's CHECK lets through is always one. */
export const roleOf = (value: string): Role => (isRole(value) ? value : "viewer");

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** E-mail addresses are unique without regard to letter case (the index is on lower(email)). */
export async function findPortalUserByEmail(db: Database, email: string): Promise<PortalUser | undefined> {
  const row = await db
    .selectFrom("portal_users")
    .select(["id", "merchant_id", "email", "password_hash", "role", "two_factor_enabled_at"])
    .where(sql<string>`lower(email)`, "=", email.trim().toLowerCase())
    .executeTakeFirst();
  return (
    row && {
      userId: row.id,
      merchantId: row.merchant_id,
      email: row.email,
      passwordHash: row.password_hash,
      role: roleOf(row.role),
      twoFactorEnabled: row.two_factor_enabled_at !== null,
    }
  );
}

/**
 * Starts a session; the returned token goes into the cookie and exists nowhere else. A session
 * `secondFactorPending` only lets its user give the second factor (docs/portal.md#two-factor-sign-in).
 */
export async function createPortalSession(
  db: Database,
  user: Pick<PortalUser, "userId" | "merchantId">,
  origin: SessionOrigin,
  secondFactorPending = false,
): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await db
    .insertInto("portal_sessions")
    .values({
      id_hash: hashToken(token),
      user_id: user.userId,
      merchant_id: user.merchantId,
      csrf_token: randomBytes(32).toString("base64url"),
      address: origin.address.slice(0, 100),
      user_agent: origin.userAgent.slice(0, 300),
      second_factor_pending: secondFactorPending,
    })
    .execute();
  return token;
}

/**
 * The live session of a cookie, or undefined when it is unknown, signed out, idle longer than
 * `idleSeconds` or older than `maxAgeSeconds`. A live session's idle clock restarts, written at
 * most once a minute so that browsing is not a write per page.
 */
export async function findPortalSession(
  db: Database,
  token: string,
  limits: { idleSeconds: number; maxAgeSeconds: number },
  now: Date,
): Promise<PortalSession | undefined> {
  const idHash = hashToken(token);
  const row = await db
    .selectFrom("portal_sessions as s")
    .innerJoin("portal_users as u", "u.id", "s.user_id")
    .innerJoin("merchants as m", "m.id", "s.merchant_id")
    .select([
      "s.id",
      "s.user_id",
      "s.merchant_id",
      "s.csrf_token",
      "s.created_at",
      "s.last_seen_at",
      "s.second_factor_pending",
      "u.email",
      "u.role",
      "u.two_factor_enabled_at",
      "m.name",
      "m.require_two_factor",
    ])
    .where("s.id_hash", "=", idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const idle = (now.getTime() - row.last_seen_at.getTime()) / 1000;
  const age = (now.getTime() - row.created_at.getTime()) / 1000;
  // Between the password and the code a session lives only minutes.
  const maxAge = row.second_factor_pending ? Math.min(limits.maxAgeSeconds, SECOND_FACTOR_SECONDS) : limits.maxAgeSeconds;
  if (idle > limits.idleSeconds || age > maxAge) {
    await deletePortalSession(db, token);
    return undefined;
  }
  if (idle > 60) await db.updateTable("portal_sessions").set({ last_seen_at: now }).where("id_hash", "=", idHash).execute();
  return {
    sessionId: row.id,
    userId: row.user_id,
    merchantId: row.merchant_id,
    email: row.email,
    merchantName: row.name,
    csrfToken: row.csrf_token,
    role: roleOf(row.role),
    twoFactorEnabled: row.two_factor_enabled_at !== null,
    twoFactorRequired: row.require_two_factor,
    secondFactorPending: row.second_factor_pending,
  };
}

/** How long a session may wait for its second factor. */
export const SECOND_FACTOR_SECONDS = 5 * 60;

/** Sign-out: the row goes, so the cookie is worthless everywhere at once. */
export async function deletePortalSession(db: Database, token: string): Promise<void> {
  await db.deleteFrom("portal_sessions").where("id_hash", "=", hashToken(token)).execute();
}

export interface SessionListEntry {
  sessionId: string;
  createdAt: Date;
  lastSeenAt: Date;
  address: string | null;
  userAgent: string | null;
}

/** A user's signed-in sessions, newest first (one waiting for its second factor is not signed in). */
export async function listUserSessions(db: Database, userId: string): Promise<SessionListEntry[]> {
  const rows = await db
    .selectFrom("portal_sessions")
    .select(["id", "created_at", "last_seen_at", "address", "user_agent"])
    .where("user_id", "=", userId)
    .where("second_factor_pending", "=", false)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    sessionId: row.id,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    address: row.address,
    userAgent: row.user_agent,
  }));
}

/** Ends one session of this user; false when the user has no such session. */
export async function endUserSession(db: Database, userId: string, sessionId: string): Promise<boolean> {
  const result = await db.deleteFrom("portal_sessions").where("user_id", "=", userId).where("id", "=", sessionId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Ends every session of this user but `keepSessionId` (none kept when undefined). */
export async function endUserSessions(db: Database, userId: string, keepSessionId?: string): Promise<void> {
  let query = db.deleteFrom("portal_sessions").where("user_id", "=", userId);
  if (keepSessionId !== undefined) query = query.where("id", "!=", keepSessionId);
  await query.execute();
}

/** Sessions idle past any limit are gone for good; called now and then so the table stays small. */
export async function deleteStalePortalSessions(db: Database, idleSeconds: number): Promise<void> {
  await db.deleteFrom("portal_sessions").where("last_seen_at", "<", sql<Date>`now() - make_interval(secs => ${idleSeconds})`).execute();
}

/** Failed sign-ins of each subject within the window: how many, and when the oldest happened. */
/**
 * Takes this sign-in attempt's place in the brake before its password is checked: one row per
 * subject, counted as a failure until the attempt says otherwise. Returns the rows (in the order of
 * `subjects`) and the other attempts of each subject in the window. The insert commits before the count, so of N attempts
 * at once the k-th to insert counts at least k-1 others: no more than the limit ever pass,
 * whatever the number of instances (docs/portal.md#sign-in).
 */
export async function takeSigninSlots(
  db: Database,
  subjects: string[],
  now: Date,
  since: Date,
): Promise<{ ids: number[]; others: Map<string, { count: number; oldest: Date }> }> {
  const inserted = await db
    .insertInto("portal_signin_failures")
    .values(subjects.map((subject) => ({ subject, failed_at: now })))
    .returning(["id", "subject"])
    .execute();
  const ids = subjects.map((subject) => Number(inserted.find((row) => row.subject === subject)!.id));
  const rows = await db
    .selectFrom("portal_signin_failures")
    .select(["subject", (eb) => eb.fn.countAll<string>().as("count"), (eb) => eb.fn.min("failed_at").as("oldest")])
    .where("subject", "in", subjects)
    .where("failed_at", ">", since)
    .where("id", "not in", ids)
    .groupBy("subject")
    .execute();
  return { ids, others: new Map(rows.map((row) => [row.subject, { count: Number(row.count), oldest: new Date(row.oldest) }])) };
}

/** An attempt held back by the brake was not tried: it gives its place back, so the wait stays exact. */
export async function releaseSigninSlots(db: Database, ids: number[]): Promise<void> {
  await db.deleteFrom("portal_signin_failures").where("id", "in", ids).execute();
}

/**
 * After a correct password the account's count starts again from this attempt: its failures up to
 * it go, while attempts still running keep their places. The address's count stays.
 */
export async function clearSigninFailures(db: Database, subject: string, upToId: number): Promise<void> {
  await db.deleteFrom("portal_signin_failures").where("subject", "=", subject).where("id", "<=", upToId).execute();
}

/** Old failures are irrelevant to any window; this keeps the table small. */
export async function deleteOldSigninFailures(db: Database, before: Date): Promise<void> {
  await db.deleteFrom("portal_signin_failures").where("failed_at", "<", before).execute();
}
