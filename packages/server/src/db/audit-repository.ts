// The audit log (docs/portal.md#audit-log): one INSERT that joins the caller's transaction, and the
// merchant's entries newest first, filtered and paged. Nothing here updates or deletes: the table's
// trigger would refuse it anyway (migration 0032).
import { type Selectable, sql, type Transaction } from "kysely";
import { type Actor, actorId, actorLabel } from "../domain/audit/actor.ts";
import type { AuditDetails, AuditEvent } from "../domain/audit/entry.ts";
import type { Database } from "./connect.ts";
import { pageTotal, WINDOW_TOTAL } from "./page-total.ts";
import type { AuditLogTable, DB } from "./schema.ts";

type Queryable = Database | Transaction<DB>;

export interface AuditEntry {
  id: string;
  merchantId: string;
  actorKind: Actor["kind"];
  actorId: string | null;
  actorLabel: string;
  action: string;
  objectType: string;
  objectId: string;
  address: string | null;
  details: AuditDetails;
  createdAt: Date;
}

export interface AuditFilter {
  action?: string | undefined;
  /** The actor's label (an e-mail or a key's prefix), without regard to letter case. */
  actor?: string | undefined;
  objectId?: string | undefined;
  /** From this instant, included. */
  from?: Date | undefined;
  /** Before this instant. */
  before?: Date | undefined;
}

/** The columns of one new entry (also the parameters of statements that insert it beside their own row). */
export function auditColumns(event: AuditEvent) {
  return {
    merchant_id: event.merchantId,
    actor_kind: event.actor.kind,
    actor_id: actorId(event.actor),
    actor_label: actorLabel(event.actor),
    action: event.action,
    object_type: event.object.type,
    object_id: event.object.id,
    address: event.actor.address,
    details: JSON.stringify(event.details ?? {}),
  };
}

/** Records one entry; given a transaction, it commits with the change it records or not at all. */
export async function insertAuditEntry(db: Queryable, event: AuditEvent): Promise<void> {
  await db.insertInto("audit_log").values(auditColumns(event)).execute();
}

/**
 * Where a read in batches (the CSV) goes on: after this entry, newest first. Its time is read from
 * the row in SQL: a JavaScript Date keeps milliseconds, the column microseconds.
 */
export interface AuditCursor {
  id: string;
}

function filtered(db: Database, merchantId: string, filter: AuditFilter) {
  let query = db.selectFrom("audit_log").where("merchant_id", "=", merchantId);
  if (filter.action) query = query.where("action", "=", filter.action);
  if (filter.actor) query = query.where(sql<string>`lower(actor_label)`, "=", filter.actor.trim().toLowerCase());
  if (filter.objectId) query = query.where("object_id", "=", filter.objectId.trim());
  if (filter.from) query = query.where("created_at", ">=", filter.from);
  if (filter.before) query = query.where("created_at", "<", filter.before);
  return query;
}

/** A batch of entries after `after` (from the newest when undefined), and where the next batch starts. */
export async function auditEntriesAfter(
  db: Database,
  merchantId: string,
  filter: AuditFilter,
  after: AuditCursor | undefined,
  limit: number,
): Promise<{ entries: AuditEntry[]; next: AuditCursor | undefined }> {
  let query = filtered(db, merchantId, filter);
  if (after) {
    query = query.where(sql<boolean>`(created_at, id) < (SELECT a.created_at, a.id FROM audit_log a WHERE a.id = ${after.id}::bigint)`);
  }
  const rows = await query.selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
  const entries = rows.map(toEntry);
  const last = entries[entries.length - 1];
  return { entries, next: entries.length === limit && last ? { id: last.id } : undefined };
}

export async function listAuditEntries(
  db: Database,
  merchantId: string,
  filter: AuditFilter,
  page: { offset: number; limit: number },
): Promise<{ entries: AuditEntry[]; totalCount: number }> {
  const query = filtered(db, merchantId, filter);
  const rows = await query
    .selectAll()
    .select(WINDOW_TOTAL)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(rows, () => query.select((eb) => eb.fn.countAll<string>().as("count")).executeTakeFirstOrThrow());
  return {
    totalCount,
    entries: rows.map(toEntry),
  };
}

function toEntry(row: Selectable<AuditLogTable>): AuditEntry {
  return {
    id: String(row.id),
    merchantId: row.merchant_id,
    actorKind: row.actor_kind as Actor["kind"],
    actorId: row.actor_id,
    actorLabel: row.actor_label,
    action: row.action,
    objectType: row.object_type,
    objectId: row.object_id,
    address: row.address,
    details: (row.details ?? {}) as AuditDetails,
    createdAt: row.created_at,
  };
}
