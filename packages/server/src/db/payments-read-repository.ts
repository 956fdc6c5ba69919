// What the portal reads about a merchant's payments: the finished checkout submissions of its
// links (approved, declined, failed), sales per day, and the links that sell most. Read-only;
// every query is scoped to one merchant through the link's merchant_id.
import { sql } from "kysely";
import type { Database } from "./connect.ts";
import { pageTotal, WINDOW_TOTAL } from "./page-total.ts";
import { type SubmissionRecord, toSubmission } from "./submissions-repository.ts";

/** Submissions that are payments a merchant should see: pending and abandoned ones never became one. */
const FINISHED = ["approved", "declined", "failed"];

export interface PaymentRow extends SubmissionRecord {
  linkDescription: string;
  linkType: string;
}

export interface PaymentFilter {
  /** Inclusive lower bound of created_at. */
  from?: Date | undefined;
  /** Exclusive upper bound of created_at. */
  to?: Date | undefined;
}

function paymentsQuery(db: Database, merchantId: string, filter: PaymentFilter) {
  let query = db
    .selectFrom("submissions as s")
    .innerJoin("payment_links as l", "l.reference", "s.link_reference")
    .where("l.merchant_id", "=", merchantId)
    .where("s.state", "in", FINISHED);
  if (filter.from) query = query.where("s.created_at", ">=", filter.from);
  if (filter.to) query = query.where("s.created_at", "<", filter.to);
  return query;
}

export async function listPayments(
  db: Database,
  merchantId: string,
  filter: PaymentFilter,
  page: { offset: number; limit: number },
): Promise<{ payments: PaymentRow[]; totalCount: number }> {
  const query = paymentsQuery(db, merchantId, filter);
  const rows = await query
    .selectAll("s")
    .select(["l.description as link_description", "l.type as link_type"])
    .select(WINDOW_TOTAL)
    .orderBy("s.created_at", "desc")
    .orderBy("s.id", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(rows, () => query.select(sql<string>`count(*)`.as("count")).executeTakeFirstOrThrow());
  return {
    totalCount,
    payments: rows.map((row) => ({ ...toSubmission(row), linkDescription: row.link_description, linkType: row.link_type })),
  };
}

/** One payment of this merchant by its checkoutReference; another merchant's is undefined. */
export async function findPayment(db: Database, merchantId: string, checkoutReference: string): Promise<PaymentRow | undefined> {
  const row = await paymentsQuery(db, merchantId, {})
    .where("s.id", "=", checkoutReference)
    .selectAll("s")
    .select(["l.description as link_description", "l.type as link_type"])
    .executeTakeFirst();
  return row && { ...toSubmission(row), linkDescription: row.link_description, linkType: row.link_type };
}

export interface DailySales {
  /** YYYY-MM-DD in UTC (Iceland's time all year). */
  day: string;
  currency: string;
  sales: number;
  revenue: number;
}

/** Approved payments (tokenizations, which move no money, left out) per day and currency since `from`. */
export async function salesPerDay(db: Database, merchantId: string, from: Date): Promise<DailySales[]> {
  const day = sql<string>`to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .selectFrom("submissions as s")
    .innerJoin("payment_links as l", "l.reference", "s.link_reference")
    .where("l.merchant_id", "=", merchantId)
    .where("s.state", "=", "approved")
    .where("l.type", "=", "PayByLink")
    .where("s.created_at", ">=", from)
    .select([day.as("day"), "s.currency", sql<string>`count(*)`.as("sales"), sql<string>`sum(s.amount)`.as("revenue")])
    .groupBy([day, "s.currency"])
    .orderBy(day)
    .execute();
  return rows.map((row) => ({ day: row.day, currency: row.currency, sales: Number(row.sales), revenue: Number(row.revenue) }));
}

export interface LinkTotals {
  visits: number;
  sales: number;
  links: number;
}

/** Visits and sales of all the merchant's links (counted on the links, so since each was made). */
export async function linkTotals(db: Database, merchantId: string): Promise<LinkTotals> {
  const row = await db
    .selectFrom("payment_links")
    .where("merchant_id", "=", merchantId)
    .select([
      sql<string>`coalesce(sum(visit_count), 0)`.as("visits"),
      sql<string>`coalesce(sum(sales_count), 0)`.as("sales"),
      sql<string>`count(*)`.as("links"),
    ])
    .executeTakeFirstOrThrow();
  return { visits: Number(row.visits), sales: Number(row.sales), links: Number(row.links) };
}

export interface TopLink {
  reference: string;
  description: string;
  salesCount: number;
  visitCount: number;
}

export async function topLinks(db: Database, merchantId: string, limit: number): Promise<TopLink[]> {
  const rows = await db
    .selectFrom("payment_links")
    .where("merchant_id", "=", merchantId)
    .where("sales_count", ">", 0)
    .select(["reference", "description", "sales_count", "visit_count"])
    .orderBy("sales_count", "desc")
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    reference: row.reference,
    description: row.description,
    salesCount: row.sales_count,
    visitCount: row.visit_count,
  }));
}
