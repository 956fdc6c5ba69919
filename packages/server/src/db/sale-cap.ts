// The most sales a link allows, as SQL over a payment_links row: its maxSalesCount, unlimited
// without one, and one card for a tokenize link. The reservation and the sale both test it.
import { sql } from "kysely";

export const SALE_CAP = sql`(CASE WHEN type = 'TokenizeByLink' THEN 1 ELSE COALESCE(max_sales_count, 2147483647) END)`;
