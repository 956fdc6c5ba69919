// The mail outbox's SQL (the queueing statements are in mail/outbox.ts, beside the webhook
// outbox's): leases for the workers, the outcome of each attempt, and the operator's listing.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Database } from "./connect.ts";

export interface ClaimedMail {
  id: string;
  leaseToken: string;
  recipient: string;
  language: string;
  kind: string;
  subject: string;
  html: string;
  text: string;
  secretSealed: string | null;
  /** Tries so far, this one included. */
  attempts: number;
}

/**
 * Leases up to `limit` due messages for `leaseMs`, each counted as an attempt. SKIP LOCKED lets
 * several workers claim side by side without waiting on or taking each other's rows; a worker
 * that dies leaves its lease to run out, and the message is due again.
 */
export async function claimDueMail(db: Database, now: Date, limit: number, leaseMs: number): Promise<ClaimedMail[]> {
  const token = randomUUID();
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const { rows } = await sql<{
    id: string;
    recipient: string;
    language: string;
    kind: string;
    subject: string;
    html: string;
    text: string;
    secret_sealed: string | null;
    attempts: number;
  }>`
    UPDATE mail_outbox SET lease_until = ${leaseUntil}, lease_token = ${token}, attempts = attempts + 1
    WHERE id IN (
      SELECT id FROM mail_outbox
      WHERE status = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
      ORDER BY next_attempt_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, recipient, language, kind, subject, html, text, secret_sealed, attempts`.execute(db);
  return rows.map((row) => ({
    id: row.id,
    leaseToken: token,
    recipient: row.recipient,
    language: row.language,
    kind: row.kind,
    subject: row.subject,
    html: row.html,
    text: row.text,
    secretSealed: row.secret_sealed,
    attempts: row.attempts,
  }));
}

/** Sent: its one-time link, if any, is erased. Only under the lease that sent it. */
export async function markMailSent(db: Database, mail: ClaimedMail, now: Date): Promise<void> {
  await sql`UPDATE mail_outbox SET status = 'sent', sent_at = ${now}, last_error = NULL, secret_sealed = NULL,
      lease_until = NULL, lease_token = NULL
    WHERE id = ${mail.id} AND lease_token = ${mail.leaseToken}`.execute(db);
}

/** Not sent: tried again at `nextAttemptAt`, or given up on (its one-time link erased) when null. */
export async function markMailFailed(db: Database, mail: ClaimedMail, error: string, nextAttemptAt: Date | null): Promise<void> {
  if (nextAttemptAt) {
    await sql`UPDATE mail_outbox SET next_attempt_at = ${nextAttemptAt}, last_error = ${error}, lease_until = NULL, lease_token = NULL
      WHERE id = ${mail.id} AND lease_token = ${mail.leaseToken}`.execute(db);
  } else {
    await sql`UPDATE mail_outbox SET status = 'failed', last_error = ${error}, secret_sealed = NULL, lease_until = NULL, lease_token = NULL
      WHERE id = ${mail.id} AND lease_token = ${mail.leaseToken}`.execute(db);
  }
}

export interface KeptMail {
  id: string;
  recipient: string;
  kind: string;
  subject: string;
  text: string;
}

/**
 * Without SMTP_URL: the pending messages become `kept` (for the operator, never sent) and are
 * returned for the log. A kept one-time link can never be used, so it is erased at once.
 */
export async function keepPendingMail(db: Database, limit: number): Promise<KeptMail[]> {
  const { rows } = await sql<KeptMail>`
    UPDATE mail_outbox SET status = 'kept', secret_sealed = NULL, lease_until = NULL, lease_token = NULL
    WHERE id IN (SELECT id FROM mail_outbox WHERE status = 'pending' ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, recipient, kind, subject, text`.execute(db);
  return rows;
}

/** One-time links whose time is over are erased, sent or not: nobody can use them any more. */
export async function eraseExpiredOneTimeLinks(db: Database, now: Date): Promise<number> {
  const result = await sql`UPDATE mail_outbox SET secret_sealed = NULL
    WHERE secret_sealed IS NOT NULL AND secret_expires_at < ${now}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface MailListEntry {
  id: string;
  merchantId: string | null;
  recipient: string;
  language: string;
  kind: string;
  subject: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date;
  sentAt: Date | null;
  lastError: string | null;
  createdAt: Date;
}

/** The latest messages, newest first (`paylink mail`, the admin API); bodies left out. */
export async function listLatestMail(
  db: Database,
  options: { limit: number; offset?: number; merchantId?: string },
): Promise<MailListEntry[]> {
  let query = db
    .selectFrom("mail_outbox")
    .select([
      "id",
      "merchant_id",
      "recipient",
      "language",
      "kind",
      "subject",
      "status",
      "attempts",
      "next_attempt_at",
      "sent_at",
      "last_error",
      "created_at",
    ])
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(options.limit)
    .offset(options.offset ?? 0);
  if (options.merchantId !== undefined) query = query.where("merchant_id", "=", options.merchantId);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id,
    merchantId: row.merchant_id,
    recipient: row.recipient,
    language: row.language,
    kind: row.kind,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    sentAt: row.sent_at,
    lastError: row.last_error,
    createdAt: row.created_at,
  }));
}

/** How many messages a merchant has in the outbox (the admin list's totalCount). */
export async function countMerchantMail(db: Database, merchantId: string): Promise<number> {
  const row = await db
    .selectFrom("mail_outbox")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("merchant_id", "=", merchantId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The plain-text body of one message (`paylink mail --show`); one-time links stay placeholders. */
export async function findMailText(db: Database, id: string): Promise<{ subject: string; recipient: string; text: string } | undefined> {
  return db.selectFrom("mail_outbox").select(["subject", "recipient", "text"]).where("id", "=", id).executeTakeFirst();
}

/** Where a payment's receipt went, in which language, and from which merchant: its refund notice goes there too. */
export async function findReceiptRecipient(
  db: Database,
  checkoutReference: string,
): Promise<{ recipient: string; language: string; merchantName: string } | undefined> {
  return db
    .selectFrom("mail_outbox as o")
    .innerJoin("merchants as m", "m.id", "o.merchant_id")
    .select(["o.recipient", "o.language", "m.name as merchantName"])
    .where("o.kind", "=", "receipt")
    .where("o.checkout_reference", "=", checkoutReference)
    .orderBy("o.created_at")
    .limit(1)
    .executeTakeFirst();
}
