// Fresh statistics for the delivery queue once it has outgrown them (docs/decisions.md#queue-statements).
// Each pooled session keeps the plan PostgreSQL made for the worker's hand-over statement; one made
// while the table held a hundred rows reads the whole backlog for every batch, and autovacuum
// analyses only after a minute's nap. So a busy worker looks every few seconds (a quiet one once a
// minute) whether the table's size on disk is far above pg_class.relpages, and if so runs
// ANALYZE (SKIP_LOCKED: never behind a vacuum), which makes every session of every instance plan
// its statements again.
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
