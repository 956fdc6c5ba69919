// Commits on a hot row without holding it through the disk flush (D-200). A transaction that updates
// a row every payment of a link shares (the link's counters) commits with `synchronous_commit` off,
// which ends it and frees the row as soon as its WAL record is written; the caller then waits for
// the flush once, with no lock held, before anything outside the database relies on the write (the
// processor call, the shopper's answer).
//
// Why the wait covers the earlier commit: WAL is one ordered stream, and a commit that waits for the
// disk waits for everything written before it. `pg_logical_emit_message(true, …)` writes one small
// record in a transaction of its own, so its commit waits for the flush (and for a synchronous
// standby, when one is configured) like any ordinary commit, without writing to any table.
import { type Kysely, sql } from "kysely";
import { preparedStatement, runPrepared } from "./prepared.ts";
import type { DB } from "./schema.ts";

/** The text of COMMIT_WITHOUT_WAITING, for statements written as fixed text (prepared statements, D-232). */
export const COMMIT_WITHOUT_WAITING_TEXT = "set_config('synchronous_commit', 'off', true)";

/**
 * For a `WHERE` clause (or a statement of its own) inside the transaction: its commit does not wait
 * for the disk. Always true.
 */
export const COMMIT_WITHOUT_WAITING = sql.raw<string>(COMMIT_WITHOUT_WAITING_TEXT);

/** Returns once every commit this connection's server had made before the call is on disk. */
export async function waitUntilDurable(db: Kysely<DB>): Promise<void> {
  await runPrepared(db, WAIT_UNTIL_DURABLE, []);
}

const WAIT_UNTIL_DURABLE = preparedStatement("wait_until_durable", "SELECT pg_logical_emit_message(true, 'paylink-durable', '')");
