// Commits on a hot row without holding it through the disk flush (docs/decisions.md#recording-a-payment-result).
// Every payment of a link updates the link's row (its counters). A statement that updates it commits
// with `synchronous_commit` off, which frees the row as soon as its WAL record is written; the caller
// then waits for the flush once, with no lock held, before anything outside the database relies on
// the write (the processor call, the shopper's answer). Holding the row through the flush made
// payments on one link queue behind each other's disk writes: measured at a third of the throughput.
//
// Why the wait covers the earlier commit: WAL is one ordered stream, and a commit that waits for the
// disk waits for everything written before it. `pg_logical_emit_message(true, …)` writes one small
// record in a transaction of its own, so its commit waits for the flush (and for a synchronous
// standby, when one is configured) like any ordinary commit, without writing to any table.
import { type Kysely, sql } from "kysely";
import { runCompiledPrepared } from "./prepared.ts";
import type { DB } from "./schema.ts";

/** A condition for the statement's `WHERE`: its transaction commits without waiting for the disk. Always true. */
export const COMMIT_WITHOUT_WAITING = sql<boolean>`set_config('synchronous_commit', 'off', true) IS NOT NULL`;

/** Returns once every commit this connection's server had made before the call is on disk. */
export async function waitUntilDurable(db: Kysely<DB>): Promise<void> {
  await runCompiledPrepared(db, sql`SELECT pg_logical_emit_message(true, 'paylink-durable', '')`.compile(db));
}
