// Payment links: their rows turned into domain values (here and nowhere else), the API's and the
// portal's lists, and the API's read of one link with its submissions.
//
// The API's list reads only the columns a summary shows: the whole row (items, shopper fields
// and the rest) tripled the database's and the driver's work per page.
//
// The API's read of one link is one statement: the link, its submissions and what is refunded of
// each (three round trips were most of a get's cost, and one statement reads them from one
// snapshot). A link with more submissions than one statement should carry is read again in
// batches, in one snapshot too (docs/decisions.md#big-link-reads).
import { type ExpressionBuilder, type Selectable, sql, type Transaction } from "kysely";
import type { AuditEvent } from "../domain/audit/entry.ts";
import type { Culture, Item, LinkStatus, LinkTerms, LinkType, RecurringProcessingModel, ShopperInfo } from "../domain/links/types.ts";
import type { SessionTerms } from "../domain/sessions/types.ts";
import { auditColumns } from "./audit-repository.ts";
import type { Database } from "./connect.ts";
import { isoMillisFromJson } from "./json-timestamp.ts";
import { linkStatusSql } from "./link-status.ts";
import { pageTotal } from "./page-total.ts";
import { preparedStatement, runPrepared } from "./prepared.ts";
import type { DB, PaymentLinksTable } from "./schema.ts";
import { type Answer, type SubmissionRecord, toSubmission } from "./submissions-repository.ts";

export interface PaymentLinkRecord {
  reference: string;
  merchantId: string;
  terms: LinkTerms;
  salesCount: number;
  visitCount: number;
  disabled: boolean;
  createdAt: Date;
  /** A hosted-checkout session's own terms; null for a payment link. */
  session: SessionTerms | null;
}

type Queryable = Database | Transaction<DB>;

/** The columns a record is made of (a statement that names its columns reads these). */
export const LINK_RECORD_COLUMNS = [
  "reference",
  "merchant_id",
  "terminal_identifier",
  "type",
  "amount",
  "currency",
  "items",
  "shopper_info",
  "recurring_processing_model",
  "culture",
  "theme_key",
  "description",
  "return_url",
  "valid_until",
  "max_sales_count",
  "sales_count",
  "visit_count",
  "disabled",
  "created_at",
  "kind",
  "order_reference",
  "abandon_url",
  "merchant_shopper_reference",
  "shopper_contact",
  "is_manual_capture",
  "capture_hours_delay",
  "is_pre_auth",
] as const;

export type LinkRecordRow = Pick<Selectable<PaymentLinksTable>, (typeof LINK_RECORD_COLUMNS)[number]>;

export function toRecord(row: LinkRecordRow): PaymentLinkRecord {
  return {
    reference: row.reference,
    merchantId: row.merchant_id,
    salesCount: row.sales_count,
    visitCount: row.visit_count,
    disabled: row.disabled,
    createdAt: row.created_at,
    session: row.kind === "session" ? sessionOf(row) : null,
    terms: {
      type: row.type as LinkType,
      terminalIdentifier: row.terminal_identifier,
      amount: row.amount,
      currency: row.currency,
      items: (row.items as Item[]).map(normalizeItem),
      shopperInfo: (row.shopper_info as ShopperInfo[]).map((s) => ({
        field: s.field,
        requirementType: s.requirementType,
        prefilledValue: s.prefilledValue ?? null,
      })),
      recurringProcessingModel: row.recurring_processing_model as RecurringProcessingModel | null,
      culture: row.culture as Culture,
      themeKey: row.theme_key,
      description: row.description,
      returnUrl: row.return_url,
      validUntil: row.valid_until,
      maxSalesCount: row.max_sales_count,
    },
  };
}

function sessionOf(row: LinkRecordRow): SessionTerms {
  return {
    orderReference: row.order_reference ?? "",
    abandonUrl: row.abandon_url,
    merchantShopperReference: row.merchant_shopper_reference,
    shopperContact: row.shopper_contact,
    isManualCapture: row.is_manual_capture,
    captureHoursDelay: row.capture_hours_delay,
    isPreAuth: row.is_pre_auth,
  };
}

/** jsonb does not keep key order; the wire shows the order of Straumur's payment-links API. */
function normalizeItem(item: Item): Item {
  return {
    name: item.name,
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    amountWithoutDiscount: item.amountWithoutDiscount,
    amount: item.amount,
  };
}

function termColumns(terms: LinkTerms) {
  return {
    amount: terms.amount,
    currency: terms.currency,
    items: JSON.stringify(terms.items),
    shopper_info: JSON.stringify(terms.shopperInfo),
    recurring_processing_model: terms.recurringProcessingModel,
    culture: terms.culture,
    theme_key: terms.themeKey,
    description: terms.description,
    return_url: terms.returnUrl,
    valid_until: terms.validUntil,
    max_sales_count: terms.maxSalesCount,
  };
}

export async function insertLink(db: Queryable, reference: string, merchantId: string, terms: LinkTerms): Promise<void> {
  await db
    .insertInto("payment_links")
    .values({ reference, merchant_id: merchantId, terminal_identifier: terms.terminalIdentifier, type: terms.type, ...termColumns(terms) })
    .execute();
}

/**
 * The create's insert with its checks (below) and its audit-log entry; a prepared statement on
 * PostgreSQL (db/prepared.ts). The terminal and the theme are found by their keys, their owner
 * checked as a filter. The entry is written by the same statement, from the row it inserted: a
 * link never exists without its entry, and the create stays one round trip.
 */
const INSERT_LINK_IF_REFERENCES_VALID = preparedStatement(
  "api_insert_link_if_references_valid",
  `WITH link AS (
     INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info,
                               recurring_processing_model, culture, theme_key, description, return_url, valid_until, max_sales_count)
     SELECT $1, $2, t.terminal_identifier, $3, $4::bigint, $5, $6::jsonb, $7::jsonb, $8::text, $9, $10::text, $11, $12::text,
            $13::timestamptz, $14::integer
     FROM terminals t
     WHERE t.terminal_identifier = $15 AND (t.merchant_id = $2) IS TRUE
       AND (t.currencies IS NULL OR $5::text = ANY (t.currencies))
       AND ($10::text IS NULL OR EXISTS (SELECT 1 FROM themes WHERE theme_key = $10 AND (merchant_id = $2) IS TRUE))
     RETURNING reference, merchant_id)
   INSERT INTO audit_log (merchant_id, actor_kind, actor_id, actor_label, action, object_type, object_id, address, details)
   SELECT link.merchant_id, $16, $17::text, $18, $19, $20, link.reference, $21::text, $22::jsonb FROM link`,
);

/**
 * Inserts the link, and its audit-log entry, only if its terminal is the merchant's and accepts
 * the currency, and its theme (if any) is the merchant's: the checks and the inserts in one round
 * trip. False when a check failed and nothing was inserted; the caller then finds out which
 * (services/merchant-references.ts).
 */
export async function insertLinkIfReferencesValid(
  db: Queryable,
  reference: string,
  merchantId: string,
  terms: LinkTerms,
  audit: AuditEvent,
): Promise<boolean> {
  const c = termColumns(terms);
  const a = auditColumns(audit);
  const result = await runPrepared(db, INSERT_LINK_IF_REFERENCES_VALID, [
    reference,
    merchantId,
    terms.type,
    c.amount,
    c.currency,
    c.items,
    c.shopper_info,
    c.recurring_processing_model,
    c.culture,
    c.theme_key,
    c.description,
    c.return_url,
    c.valid_until,
    c.max_sales_count,
    terms.terminalIdentifier,
    a.actor_kind,
    a.actor_id,
    a.actor_label,
    a.action,
    a.object_type,
    a.address,
    a.details,
  ]);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** A merchant's link; another merchant's link, and a session, are reported as missing. */
export async function findLink(db: Queryable, merchantId: string, reference: string): Promise<PaymentLinkRecord | undefined> {
  const row = await db
    .selectFrom("payment_links")
    .selectAll()
    .where("reference", "=", reference)
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", "link")
    .executeTakeFirst();
  return row && toRecord(row);
}

/** Locks the row until the transaction ends, so a sale cannot slip between a check and a write. */
export async function findLinkForUpdate(
  trx: Transaction<DB>,
  merchantId: string,
  reference: string,
): Promise<(PaymentLinkRecord & { reservedCount: number }) | undefined> {
  const row = await trx
    .selectFrom("payment_links")
    .selectAll()
    .where("reference", "=", reference)
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", "link")
    .forUpdate()
    .executeTakeFirst();
  return row && { ...toRecord(row), reservedCount: row.reserved_count };
}

export async function saveLinkChange(trx: Transaction<DB>, reference: string, terms: LinkTerms, disabled: boolean): Promise<void> {
  await trx
    .updateTable("payment_links")
    .set({ ...termColumns(terms), disabled, updated_at: new Date() })
    .where("reference", "=", reference)
    .execute();
}

/** Returns false when the link does not exist for this merchant. Disabling twice is fine. */
export async function disableLink(db: Queryable, merchantId: string, reference: string): Promise<boolean> {
  const result = await db
    .updateTable("payment_links")
    .set({ disabled: true, updated_at: new Date() })
    .where("reference", "=", reference)
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", "link")
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A page of a link's submissions, newest first (ties by reference), and how many it has in all:
 * the portal shows a busy link's submissions a page at a time (docs/decisions.md#big-link-reads).
 */
export async function listSubmissionsPage(
  db: Queryable,
  reference: string,
  page: { offset: number; limit: number },
): Promise<{ submissions: SubmissionRecord[]; totalCount: number }> {
  const total = sql<string>`(SELECT count(*) FROM submissions WHERE link_reference = ${reference})`;
  const rows = await db
    .selectFrom("submissions")
    .selectAll()
    .select(total.as("total_count"))
    .where("link_reference", "=", reference)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(rows, () => db.selectNoFrom(total.as("count")).executeTakeFirstOrThrow());
  return { submissions: rows.map(toSubmission), totalCount };
}

/** The portal's list: whole links (the API's list reads summaries only, listLinkSummaries). */
export function listLinks(
  db: Queryable,
  merchantId: string,
  filter: LinkListFilter,
  page: { offset: number; limit: number },
  now: Date,
): Promise<{ links: PaymentLinkRecord[]; totalCount: number }> {
  return listLinkRows(db, merchantId, filter, page, now, "all", toRecord);
}

/** What a link's summary in the list shows, and what its status is derived from. */
export interface LinkSummaryRecord {
  reference: string;
  description: string;
  amount: number;
  currency: string;
  type: LinkType;
  disabled: boolean;
  salesCount: number;
  maxSalesCount: number | null;
  validUntil: Date | null;
  createdAt: Date;
  visitCount: number;
}

interface SummaryRow {
  reference: string;
  description: string;
  amount: number;
  currency: string;
  type: string;
  disabled: boolean;
  sales_count: number;
  max_sales_count: number | null;
  valid_until: Date | null;
  created_at: Date;
  visit_count: number;
  total_count: string | number;
}

const SUMMARY_COLUMNS = [
  "reference",
  "description",
  "amount",
  "currency",
  "type",
  "disabled",
  "sales_count",
  "max_sales_count",
  "valid_until",
  "created_at",
  "visit_count",
] as const;

function toSummary(row: SummaryRow): LinkSummaryRecord {
  return {
    reference: row.reference,
    description: row.description,
    amount: row.amount,
    currency: row.currency,
    type: row.type as LinkType,
    disabled: row.disabled,
    salesCount: row.sales_count,
    maxSalesCount: row.max_sales_count,
    validUntil: row.valid_until,
    createdAt: row.created_at,
    visitCount: row.visit_count,
  };
}

export interface LinkListFilter {
  status?: LinkStatus;
  type?: LinkType;
  createdFrom?: Date;
  createdTo?: Date;
  search?: string;
}

/** The status rule of domain/links/status.ts, as SQL (db/link-status.ts), so lists can filter on it. */
function statusCondition(eb: ExpressionBuilder<DB, "payment_links">, status: LinkStatus, now: Date) {
  return eb(linkStatusSql(now), "=", status);
}

/** The API's page of link summaries and the number of all matches. */
export async function listLinkSummaries(
  db: Queryable,
  merchantId: string,
  filter: LinkListFilter,
  page: { offset: number; limit: number },
  now: Date,
): Promise<{ links: LinkSummaryRecord[]; totalCount: number }> {
  if (isFiltered(filter)) {
    return listLinkRows(db, merchantId, filter, page, now, "summary", (row) => toSummary(row as unknown as SummaryRow));
  }
  // The common request, a page of all links, is a prepared statement on PostgreSQL (db/prepared.ts).
  const { rows } = await runPrepared<SummaryRow>(db, ALL_LINKS_PAGE, [merchantId, page.offset, page.limit]);
  const totalCount = await pageTotal(rows, () => db.selectNoFrom(merchantLinkCount(merchantId).as("count")).executeTakeFirstOrThrow());
  return { links: rows.map(toSummary), totalCount };
}

/** The unfiltered page of listLinkRows below, as one fixed statement. */
const ALL_LINKS_PAGE = preparedStatement(
  "api_link_summaries",
  `SELECT ${SUMMARY_COLUMNS.join(", ")},
          (SELECT coalesce(sum(link_count), 0) FROM merchant_link_counts WHERE merchant_id = $1) AS total_count
   FROM payment_links
   WHERE merchant_id = $1 AND kind = 'link'
   ORDER BY created_at DESC, reference DESC
   OFFSET $2 LIMIT $3`,
);

function isFiltered(filter: LinkListFilter): boolean {
  return Boolean(filter.status || filter.type || filter.createdFrom || filter.createdTo || filter.search);
}

/** A page of whole link rows (`"all"`, for the portal's list) or of summary columns, newest first, and the total. */
export async function listLinkRows<T>(
  db: Queryable,
  merchantId: string,
  filter: LinkListFilter,
  page: { offset: number; limit: number },
  now: Date,
  columns: "all" | "summary",
  map: (row: Selectable<PaymentLinksTable>) => T,
): Promise<{ links: T[]; totalCount: number }> {
  // Sessions are never listed; the list's indexes hold links only (migration 0027).
  let query = db.selectFrom("payment_links").where("merchant_id", "=", merchantId).where("kind", "=", "link");
  if (filter.status) {
    const status = filter.status;
    query = query.where((eb) => statusCondition(eb, status, now));
  }
  if (filter.type) query = query.where("type", "=", filter.type);
  if (filter.createdFrom) query = query.where("created_at", ">=", filter.createdFrom);
  if (filter.createdTo) query = query.where("created_at", "<=", filter.createdTo);
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) => eb.or([eb("reference", "ilike", pattern), eb("description", "ilike", pattern)]));
  }
  // The total is a scalar subquery of the same statement (one snapshot, so page and total agree),
  // and the page walks the (merchant_id, created_at, reference) index and stops after `limit` rows.
  // Without a filter the total is the merchant's link counter (migration 0015, kept in the
  // inserting transaction): constant time, where counting read 1 M index entries (0.1 s) at 1 M
  // links. A filtered total is counted; search finds its matches through the trigram index.
  const total = isFiltered(filter) ? sql<string>`(${query.select(sql`count(*)`.as("count"))})` : merchantLinkCount(merchantId);
  const selected = columns === "all" ? query.selectAll() : (query.select(SUMMARY_COLUMNS) as unknown as ReturnType<typeof query.selectAll>);
  const rows = await selected
    .select(total.as("total_count"))
    .orderBy("created_at", "desc")
    .orderBy("reference", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(rows, () => db.selectNoFrom(total.as("count")).executeTakeFirstOrThrow());
  return { links: rows.map(map), totalCount };
}

/** The merchant's number of links: the sum of its counter slots (migration 0015). */
function merchantLinkCount(merchantId: string) {
  return sql<string>`(SELECT coalesce(sum(link_count), 0) FROM merchant_link_counts WHERE merchant_id = ${merchantId})`;
}

/** A submission exactly as the API's link read shows it (built by the statement, in the wire's key order). */
export interface LinkSubmission {
  checkoutReference: string;
  answers: Answer[];
  completed: boolean;
  amount: number;
  currency: string;
  token: string | null;
  payfacReference: string | null;
  /** What is refunded of this payment so far (0 when nothing, or no payment). */
  refundedAmount: number;
  /** ISO 8601 in UTC to the millisecond, ending in Z. */
  createdAt: string;
}

// Each submission comes as a JSON array of its values in the wire's order, and is named and its
// time formatted here: building objects with key names and formatting the time with
// to_char were two thirds of PostgreSQL's CPU for this statement, where a tuple and one Date
// cost the driver little. A timestamp in JSON carries its offset, so the instant does not depend
// on the session's time zone (json-timestamp.ts reads it). A prepared
// statement on PostgreSQL (db/prepared.ts), so its columns are named, and the link is found by its
// reference alone, its merchant checked as a filter (`IS TRUE`, docs/decisions.md#named-statements).
//
// It reads at most one more than SUBMISSIONS_AT_ONCE submissions, any of them (no order before
// the limit, so no sort beyond the aggregate's): all of them when there are no more than that,
// and otherwise enough to know the link must be read in batches.
export const SUBMISSIONS_AT_ONCE = 1_000;

/** The tuple of each submission in `s` (a row of submissions), with its refunded sum from `r`. */
const SUBMISSION_TUPLE = `json_build_array(
  s.id, s.answers, s.completed, s.amount, s.currency, s.token, s.payfac_reference,
  coalesce(r.refunded_amount, 0), s.created_at
)`;
const SUBMISSION_COLUMNS = "id, answers, completed, amount, currency, token, payfac_reference, created_at";

const LINK_WITH_SUBMISSIONS = preparedStatement(
  "api_link_with_submissions",
  `SELECT ${LINK_RECORD_COLUMNS.map((column) => `l.${column}`).join(", ")}, (
     SELECT coalesce(json_agg(${SUBMISSION_TUPLE} ORDER BY s.created_at, s.id), '[]'::json)
     FROM (SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE link_reference = l.reference LIMIT ${SUBMISSIONS_AT_ONCE + 1}) s
     LEFT JOIN refund_balances r ON r.payfac_reference = s.payfac_reference
   ) AS submissions_json
   FROM payment_links l
   WHERE l.reference = $1 AND (l.merchant_id = $2 AND l.kind = 'link') IS TRUE`,
);

/** One submission as the statement sends it: the LinkSubmission's values in its key order. */
type SubmissionTuple = [string, Answer[], boolean, number, string, string | null, string | null, number, string];

function toLinkSubmission(t: SubmissionTuple): LinkSubmission {
  return {
    checkoutReference: t[0],
    answers: t[1],
    completed: t[2],
    amount: t[3],
    currency: t[4],
    token: t[5],
    payfacReference: t[6],
    refundedAmount: t[7],
    createdAt: isoMillisFromJson(t[8]),
  };
}

/**
 * A merchant's link with its submissions, oldest first; another merchant's link is reported as
 * missing. `submissions` is undefined when the link has more than SUBMISSIONS_AT_ONCE: read it
 * with readLinkInBatches.
 */
export async function findLinkWithSubmissions(
  db: Database,
  merchantId: string,
  reference: string,
): Promise<{ link: PaymentLinkRecord; submissions: LinkSubmission[] | undefined } | undefined> {
  const { rows } = await runPrepared<LinkRecordRow & { submissions_json: SubmissionTuple[] }>(db, LINK_WITH_SUBMISSIONS, [
    reference,
    merchantId,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  const tuples = row.submissions_json;
  return { link: toRecord(row), submissions: tuples.length > SUBMISSIONS_AT_ONCE ? undefined : tuples.map(toLinkSubmission) };
}

/**
 * A merchant's link and all its submissions, oldest first, from one snapshot (a repeatable-read,
 * read-only transaction on PostgreSQL; on PGlite a transaction, during which the serialized
 * dialect lets no one else at the one session), the submissions handed to `onBatch`
 * SUBMISSIONS_AT_ONCE at a time: each batch is one statement, so the process never holds more than
 * one batch's rows, and other requests run between batches. Undefined for another merchant's
 * link. Once `stop` is aborted (the client left) the read ends with its reason, rolled back.
 */
export async function readLinkInBatches(
  db: Database,
  merchantId: string,
  reference: string,
  stop: AbortSignal,
  onBatch: (submissions: LinkSubmission[]) => void | Promise<void>,
): Promise<PaymentLinkRecord | undefined> {
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .setAccessMode("read only")
    .execute(async (trx) => {
      const row = await trx
        .selectFrom("payment_links")
        .select(LINK_RECORD_COLUMNS)
        .where("reference", "=", reference)
        .where("merchant_id", "=", merchantId)
        .where("kind", "=", "link")
        .executeTakeFirst();
      if (!row) return undefined;
      stop.throwIfAborted();
      // Each batch must walk the link's submissions in order from where the last stopped, and stop
      // after a batch. Without statistics on submissions (PGlite never gathers them, and a young
      // or unvacuumed table has none) the planner expects a few rows and reads all of the link's
      // into a bitmap and sorts them for every batch: 42 ms a batch at 100,000 submissions, where
      // the walk takes 1.2 ms.
      await sql`SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`.execute(trx);
      // The batches follow (created_at, id), the order the API shows; each starts after the last
      // submission of the one before.
      let after: { createdAt: string; id: string } = { createdAt: "-infinity", id: "" };
      for (;;) {
        const { rows } = await sql<{ tuples: SubmissionTuple[] | null }>`
          SELECT json_agg(${sql.raw(SUBMISSION_TUPLE)} ORDER BY s.created_at, s.id) AS tuples
          FROM (SELECT ${sql.raw(SUBMISSION_COLUMNS)} FROM submissions
                WHERE link_reference = ${reference}
                  AND created_at >= ${after.createdAt}::timestamptz
                  AND (created_at, id) > (${after.createdAt}::timestamptz, ${after.id})
                ORDER BY created_at, id
                LIMIT ${SUBMISSIONS_AT_ONCE}) s
          LEFT JOIN refund_balances r ON r.payfac_reference = s.payfac_reference`.execute(trx);
        const tuples = rows[0]?.tuples ?? [];
        if (tuples.length > 0) await onBatch(tuples.map(toLinkSubmission));
        if (tuples.length < SUBMISSIONS_AT_ONCE) return toRecord(row);
        const last = tuples.at(-1)!;
        after = { createdAt: last[8], id: last[0] };
        // Let waiting I/O run between batches: PGlite answers in the same thread, and without
        // this turn of the event loop the batches ran back to back as one long task (a /healthz
        // waited the whole read, 1.3 s at 100,000 submissions).
        await new Promise((resolve) => setImmediate(resolve));
        stop.throwIfAborted();
      }
    });
}
