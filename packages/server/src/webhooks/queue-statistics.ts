// Fresh statistics for the delivery queue when a backlog begins (D-263). A queue's table changes
// shape faster than autovacuum looks at it (once a minute, and only after a tenth of the table
// changed): when a receiver comes back after an outage, or a young installation meets its first
// rush, the statistics, and every plan a session has kept for the worker's prepared statements,
// still describe a quiet or nearly empty table. A plan made while the table held a hundred rows
// reads it sequentially for every batch, which cost nothing then and the whole backlog now (384
// against 968-1,022 messages/s in the benchmark). ANALYZE both renews the statistics and makes every
// session plan its statements again.
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import type { WorkerLogger } from "./outcome.ts";

/** A claim that leases at least this many deliveries at once sees a backlog, not a trickle. */
export const BACKLOG_CLAIM = 8;

/** Each worker refreshes the statistics at most this often (ANALYZE samples at most 30,000 rows). */
export const STATISTICS_REFRESH_INTERVAL_MS = 10 * 60_000;

/** One worker's refreshes: told of every claim, it refreshes when one meets a backlog. */
export class QueueStatistics {
  /** When this worker last refreshed them; never at first. */
  #refreshedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Database,
    private readonly logger: WorkerLogger,
  ) {}

  /** In the background: sending goes on meanwhile, and a failure only costs the refresh. */
  afterClaim(claimed: number): void {
    if (claimed < BACKLOG_CLAIM) return;
    const now = performance.now();
    if (now - this.#refreshedAt < STATISTICS_REFRESH_INTERVAL_MS) return;
    this.#refreshedAt = now;
    sql`ANALYZE webhook_deliveries`
      .execute(this.db)
      .catch((error: unknown) => this.logger.warn({ err: error }, "refreshing the webhook queue's statistics failed; sending goes on"));
  }
}
