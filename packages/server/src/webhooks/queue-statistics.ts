// Fresh statistics for the delivery queue once it has outgrown them (docs/decisions.md#queue-statements). The worker's
// hand-over is a prepared statement, and each pooled session keeps the plan PostgreSQL made for it.
// A plan made while the table held a hundred rows (a young installation, before its first rush)
// reads the table sequentially for every batch: nothing then, the whole backlog now (383 against
// about 1,000 messages/s in the benchmark). Autovacuum would analyse the table only after a
// minute's nap, by when a backlog of 10,000 is long sent. So while a worker is busy it looks, at
// most every few seconds, whether the table is far larger than when it was last analysed (its
// size on disk now against pg_class.relpages: exact at once, where the activity counters of
// pg_stat_user_tables arrive seconds late), and if so runs ANALYZE, which renews the statistics
// and makes every session plan its statements again. A quiet worker, sending now and then, looks
// once a minute at most: on a PostgreSQL without autovacuum nothing else would ever
// analyse the table, and a plan kept from its first rows read the whole log for every delivery.
// SKIP_LOCKED: it never waits behind a vacuum of the table (nor makes PostgreSQL cancel one). One
// instance's ANALYZE is seen by all: the others then find the statistics fresh.
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import type { WorkerLogger } from "./outcome.ts";

/** Sends in flight from which a worker counts as busy: a trickle never looks. */
export const BUSY_SENDS = 8;

/** A busy worker looks at most this often (one catalog read). */
export const CHECK_INTERVAL_MS = 5_000;

/** A worker with fewer sends in flight, but some, looks at most this often. */
export const QUIET_CHECK_INTERVAL_MS = 60_000;

/** Outgrown: at least twice the pages of the last ANALYZE, plus this many (512 KB). */
export const OUTGROWN_PAGES = 64;

/** One worker's look-outs: told of its sends in flight on every turn of its loop. */
export class QueueStatistics {
  /** When it last looked, and last looked while busy (performance.now()): a quiet look never holds back a busy one. */
  #lookedAt = Number.NEGATIVE_INFINITY;
  #busyLookedAt = Number.NEGATIVE_INFINITY;
  #checking = false;

  constructor(
    private readonly db: Database,
    private readonly logger: WorkerLogger,
  ) {}

  /** In the background: sending goes on meanwhile, and a failure only costs the refresh. */
  whileSending(inFlight: number): void {
    if (inFlight === 0 || this.#checking) return;
    const now = performance.now();
    const busy = inFlight >= BUSY_SENDS;
    if (busy ? now - this.#busyLookedAt < CHECK_INTERVAL_MS : now - this.#lookedAt < QUIET_CHECK_INTERVAL_MS) return;
    this.#lookedAt = now;
    if (busy) this.#busyLookedAt = now;
    this.#checking = true;
    refreshIfOutgrown(this.db)
      .catch((error: unknown) => this.logger.warn({ err: error }, "refreshing the webhook queue's statistics failed; sending goes on"))
      .finally(() => {
        this.#checking = false;
      });
  }
}

async function refreshIfOutgrown(db: Database): Promise<void> {
  const { rows } = await sql<{ outgrown: boolean }>`
    SELECT pg_relation_size(c.oid) / current_setting('block_size')::int >= 2 * c.relpages + ${OUTGROWN_PAGES} AS outgrown
    FROM pg_class c WHERE c.oid = 'webhook_deliveries'::regclass
  `.execute(db);
  if (rows[0]?.outgrown) await sql`ANALYZE (SKIP_LOCKED) webhook_deliveries`.execute(db);
}
