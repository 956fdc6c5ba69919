// The most sales a link allows, as SQL over a payment_links row: its maxSalesCount, unlimited
// without one, and one card for a tokenize link. The reservation and the sale both test it.
import { sql } from "kysely";

/** The text, for statements written as fixed text (prepared statements, D-232). */
export const SALE_CAP_TEXT = "(CASE WHEN type = 'TokenizeByLink' THEN 1 ELSE COALESCE(max_sales_count, 2147483647) END)";

export const SALE_CAP = sql.raw(SALE_CAP_TEXT);
