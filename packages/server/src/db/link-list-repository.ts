// The API's list of a merchant's links: a page of summaries, newest first, and the number of all
// matches. Only the columns a summary shows are read: the whole row (items, shopper fields and
// the rest) tripled the database's and the driver's work per page.
import { type ExpressionBuilder, type Selectable, sql, type Transaction } from "kysely";
import type { LinkStatus, LinkType } from "../domain/links/types.ts";
import type { Database } from "./connect.ts";
import { linkStatusSql } from "./link-status.ts";
import { pageTotal } from "./page-total.ts";
import { preparedStatement, runPrepared } from "./prepared.ts";
import type { DB, PaymentLinksTable } from "./schema.ts";

type Queryable = Database | Transaction<DB>;

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
   WHERE merchant_id = $1
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
  let query = db.selectFrom("payment_links").where("merchant_id", "=", merchantId);
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
