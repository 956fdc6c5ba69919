// Fixed-window request counters shared by every instance on one database (api_rate_counters).
// The window comes from the database clock, so instances whose clocks differ still share it.
import { sql } from "kysely";
import type { Database } from "./connect.ts";

export interface WindowCount {
  /** Requests counted in this window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

/**
 * Counts `requests` (default one) for `key` in the current window of `windowSeconds`; one
 * statement, atomic. The count returned includes them.
 */
export async function countRequest(db: Database, key: string, windowSeconds: number, requests = 1): Promise<WindowCount> {
  const { rows } = await sql<{ count: number; reset_ms: number }>`
    WITH clock AS (
      SELECT to_timestamp(floor(extract(epoch FROM now()) / ${windowSeconds}) * ${windowSeconds}) AS window_start
    )
    INSERT INTO api_rate_counters AS c (key, window_start, count)
    SELECT ${key}, clock.window_start, ${requests}::integer FROM clock
    ON CONFLICT (key, window_start) DO UPDATE SET count = c.count + ${requests}::integer
    RETURNING c.count,
      (extract(epoch FROM c.window_start + make_interval(secs => ${windowSeconds}) - now()) * 1000)::float8 AS reset_ms
  `.execute(db);
  const row = rows[0]!;
  return { count: Number(row.count), resetMs: Math.max(0, row.reset_ms) };
}

/** Drops windows that ended (maintenance, once a minute). */
export async function deleteOldRateCounters(db: Database, olderThanSeconds = 120): Promise<number> {
  const result = await sql`
    DELETE FROM api_rate_counters WHERE window_start < now() - make_interval(secs => ${olderThanSeconds})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** A place taken in a window's count by takeCountedSlot, for giving it back. */
export interface CountedSlot {
  key: string;
  windowStart: Date;
  /** The window's count with this place in it. */
  count: number;
}

/**
 * Takes one place for `key` in the current window of `windowSeconds` only while the count is under
 * `limit`; one statement, atomic. ON CONFLICT DO UPDATE locks the row and evaluates its WHERE on the
 * latest committed count, so of N concurrent takes exactly those that fit succeed, on any instance.
 * A refused take leaves the count as it was.
 */
export async function takeCountedSlot(
  db: Database,
  key: string,
  windowSeconds: number,
  limit: number,
): Promise<{ slot: CountedSlot | undefined; resetMs: number }> {
  const { rows } = await sql<{ count: number | null; window_start: Date; reset_ms: number }>`
    WITH clock AS (
      SELECT to_timestamp(floor(extract(epoch FROM now()) / ${windowSeconds}) * ${windowSeconds}) AS window_start
    ), taken AS (
      INSERT INTO api_rate_counters AS c (key, window_start, count)
      SELECT ${key}, clock.window_start, 1 FROM clock
      ON CONFLICT (key, window_start) DO UPDATE SET count = c.count + 1
      WHERE c.count < ${limit}::integer
      RETURNING c.count
    )
    SELECT (SELECT count FROM taken) AS count, clock.window_start,
      (extract(epoch FROM clock.window_start + make_interval(secs => ${windowSeconds}) - now()) * 1000)::float8 AS reset_ms
    FROM clock
  `.execute(db);
  const row = rows[0]!;
  const resetMs = Math.max(0, row.reset_ms);
  if (row.count === null) return { slot: undefined, resetMs };
  return { slot: { key, windowStart: new Date(row.window_start), count: Number(row.count) }, resetMs };
}

/** Gives a place back to the window it was taken in (a window that ended meanwhile is left alone). */
export async function giveBackCountedSlot(db: Database, slot: CountedSlot): Promise<void> {
  await sql`
    UPDATE api_rate_counters SET count = GREATEST(count - 1, 0) WHERE key = ${slot.key} AND window_start = ${slot.windowStart}
  `.execute(db);
}
