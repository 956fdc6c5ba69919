// List endpoints return a page and the number of all matches. Both come from one statement — the
// page selects `count(*) over ()` as WINDOW_TOTAL — so they agree even while rows change between
// two queries (payments, the webhook worker). Only an empty page needs a second count.
import { sql } from "kysely";

export const WINDOW_TOTAL = sql<string>`count(*) over ()`.as("total_count");

export async function pageTotal(
  rows: ReadonlyArray<{ total_count: string | number }>,
  countAll: () => Promise<{ count: string | number | bigint }>,
): Promise<number> {
  return rows.length > 0 ? Number(rows[0]!.total_count) : Number((await countAll()).count);
}
