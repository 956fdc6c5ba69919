// Opens the database Paylink runs on: PostgreSQL when a URL is given, otherwise the embedded
// PostgreSQL (PGlite) in a data directory. Both get the same migrations and the same queries.
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { type DataDirLock, lockDataDir } from "./data-dir-lock.ts";
import { migrate } from "./migrate.ts";
import { initializeDataDirApart } from "./pglite-first-start.ts";
import { statementName } from "./prepared-statement.ts";
import type { DB } from "./schema.ts";
import { SerializedPGliteDialect } from "./serialized-pglite-dialect.ts";

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: "postgres" | "pglite";
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { kind: "postgres"; url: string; poolSize?: number }
  | { kind: "pglite"; dataDir: string }
  | { kind: "pglite-memory" };

const INT8_OID = 20;
/** bigint columns hold minor units and counters far below 2^53: plain numbers are exact. */
const parseInt8 = (value: string) => Number(value);

export async function openDatabase(target: DatabaseTarget, options: { migrate?: boolean } = {}): Promise<DatabaseHandle> {
  const handle = target.kind === "postgres" ? openPostgres(target.url, target.poolSize) : await openPGlite(target);
  if (options.migrate !== false) {
    try {
      await migrate(handle.db);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
  return handle;
}

/** pg's client, which runs the texts registered as named statements by their names. */
class NamedStatementClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: forwards every one of pg's many query overloads
  override query(config: any, values?: any, callback?: any): any {
    const name = typeof config === "string" ? statementName(config) : undefined;
    return super.query(name === undefined ? config : { name, text: config }, values, callback);
  }
}

/** How long a query waits for a pool connection before it fails as "database unavailable". */
export const POOL_CONNECT_TIMEOUT_MS = 5_000;

/** Connections in one instance's pool to PostgreSQL. */
export const POOL_SIZE = 10;

function openPostgres(url: string, poolSize = POOL_SIZE): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    Client: NamedStatementClient,
    max: poolSize,
    // A request waits at most this long for a connection (an unreachable server, or every
    // connection busy) and is then answered 503 (db/unavailable.ts) instead of hanging forever.
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    // Notices a peer that vanished without closing (a dead host, a dropped NAT entry) sooner.
    keepAlive: true,
    // biome-ignore lint/suspicious/noExplicitAny: pg's typings of getTypeParser overloads cannot be satisfied by a wrapper
    types: { getTypeParser: (oid: number, format?: any) => (oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) } as any,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  // A client that is checked out (inside a query or a transaction) has no pool listener, and pg
  // emits its socket error as an event as well as failing the query: unheard, that event is an
  // uncaught exception that kills the process. The query's own error reaches the caller (503),
  // and the pool discards the broken client when it is released.
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: "postgres", close: () => db.destroy() };
}

async function openPGlite(target: { kind: "pglite"; dataDir: string } | { kind: "pglite-memory" }): Promise<DatabaseHandle> {
  let lock: DataDirLock | undefined;
  if (target.kind === "pglite") lock = lockDataDir(target.dataDir);
  try {
    if (target.kind === "pglite") await initializeDataDirApart(target.dataDir);
    const pglite = await PGlite.create(target.kind === "pglite" ? target.dataDir : "memory://", {
      parsers: { [INT8_OID]: parseInt8 },
      // The trigram indexes of link search (migration 0015) need the extension's code loaded.
      extensions: { pg_trgm },
      // 16 MB of shared buffers, not 128 MB: PostgreSQL zeroes them at start, so each MB is
      // resident for the life of the process; the files stay in the OS page cache anyway. A
      // restart held 347 MB with the default, 200 MB with this (docs/decisions.md#two-databases-one-sql).
      startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
    });
    const db = new Kysely<DB>({ dialect: new SerializedPGliteDialect({ pglite }) });
    return {
      db,
      kind: "pglite",
      close: async () => {
        try {
          await db.destroy();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
