// What the portal's overview sums up about a merchant: its approved payments per day and currency
// (link sales and saved-card charges alike: revenue is every payment that took money, docs/decisions.md#portal-pages), the
// visits and sales of its links (conversion is a link metric), and the links that sell most.
// Read-only; every query is scoped to one merchant.
import { sql } from "kysely";
import type { Database } from "./connect.ts";

export interface DailySales {
  /** YYYY-MM-DD in UTC (Iceland's time all year). */
  day: string;
  currency: string;
  sales: number;
  revenue: number;
}

/**
 * Approved payments per day and currency since `from`: sales through the merchant's PayByLink links
 * and charges of its saved cards. Tokenizations (TokenizeByLink sales) move no money and are left out.
 */
export async function salesPerDay(db: Database, merchantId: string, from: Date): Promise<DailySales[]> {
  const linkSales = db
    .selectFrom("submissions as s")
    .innerJoin("payment_links as l", "l.reference", "s.link_reference")
    .where("l.merchant_id", "=", merchantId)
    .where("s.state", "=", "approved")
    .where("l.type", "=", "PayByLink")
    .where("s.created_at", ">=", from)
    .select(["s.created_at", "s.currency", "s.amount"]);
  const tokenCharges = db
    .selectFrom("token_payments as t")
    .where("t.merchant_id", "=", merchantId)
    .where("t.state", "=", "approved")
    .where("t.created_at", ">=", from)
    .select(["t.created_at", "t.currency", "t.amount"]);
  const day = sql<string>`to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .selectFrom(linkSales.unionAll(tokenCharges).as("p"))
    .select([day.as("day"), "p.currency", sql<string>`count(*)`.as("sales"), sql<string>`sum(p.amount)`.as("revenue")])
    .groupBy([day, "p.currency"])
    .orderBy(day)
    .execute();
  return rows.map((row) => ({ day: row.day, currency: row.currency, sales: Number(row.sales), revenue: Number(row.revenue) }));
}

export interface DailyRefunds {
  day: string;
  currency: string;
  /** Money given back that day: refunds and reversals the processor confirmed. */
  refunded: number;
}

/**
 * Refunds and reversals confirmed per day (the day the processor confirmed them) and currency
 * since `from`, whatever the day of the payment they gave money back from.
 */
export async function refundsPerDay(db: Database, merchantId: string, from: Date): Promise<DailyRefunds[]> {
  const day = sql<string>`to_char(coalesce(completed_at, created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .selectFrom("refunds")
    .where("merchant_id", "=", merchantId)
    .where("state", "=", "succeeded")
    .where(sql<boolean>`coalesce(completed_at, created_at) >= ${from}`)
    .select([day.as("day"), "currency", sql<string>`sum(amount)`.as("refunded")])
    .groupBy([day, "currency"])
    .execute();
  return rows.map((row) => ({ day: row.day, currency: row.currency, refunded: Number(row.refunded) }));
}

export interface LinkTotals {
  visits: number;
  sales: number;
  links: number;
}

/** Visits and sales of all the merchant's links, sessions left out (counted on the links, so since each was made). */
export async function linkTotals(db: Database, merchantId: string): Promise<LinkTotals> {
  const row = await db
    .selectFrom("payment_links")
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", "link")
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
    .where("kind", "=", "link")
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
