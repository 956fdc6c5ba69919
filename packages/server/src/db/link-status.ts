// The link status rule of domain/links/status.ts as SQL over a payment_links row, for every
// statement that needs it: the reservation, the result, and the list filter. Both are checked
// against each other on every combination by test/domain/status.test.ts.
import { type RawBuilder, sql } from "kysely";
import type { LinkStatus } from "../domain/links/types.ts";

/** The link's status at `now`, in the order of deriveStatus. */
export function linkStatusSql(now: Date): RawBuilder<LinkStatus> {
  return sql<LinkStatus>`(CASE
    WHEN disabled THEN 'Disabled'
    WHEN type = 'TokenizeByLink' AND sales_count >= 1 THEN 'Completed'
    WHEN type = 'PayByLink' AND max_sales_count IS NOT NULL AND sales_count >= max_sales_count THEN 'Used'
    WHEN valid_until IS NOT NULL AND valid_until <= ${now} THEN 'Expired'
    ELSE 'Active' END)`;
}

/** Whether the link takes a payment at `now`: it is Active (isOpenForSale). */
export function openForSaleSql(now: Date): RawBuilder<boolean> {
  return sql<boolean>`(${linkStatusSql(now)} = 'Active')`;
}

/**
 * The most sales the link allows: its maxSalesCount, unlimited without one, one card for a
 * tokenize link. A slot is free while sales and slots held by payments in flight stay under it.
 */
export const SALE_CAP = sql<number>`(CASE WHEN type = 'TokenizeByLink' THEN 1 ELSE COALESCE(max_sales_count, 2147483647) END)`;
