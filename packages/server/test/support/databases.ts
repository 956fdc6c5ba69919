// The database backends every repository and route test runs on: embedded PGlite always, and a
// real PostgreSQL when TEST_DATABASE_URL is set (CI sets it). Each test database is new and is
// dropped afterwards, so tests never see each other's data.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { type DatabaseHandle, openDatabase } from "../../src/db/connect.ts";

export interface TestBackend {
  name: "pglite" | "postgres";
  /** A fresh, migrated database. */
  open(): Promise<TestDatabase>;
}

export interface TestDatabase extends DatabaseHandle {
  /** For PostgreSQL: the URL of this test database, so other processes can join it. */
  url?: string;
  /** Close and delete the database. */
  destroy(): Promise<void>;
}

export function testBackends(): TestBackend[] {
  const list: TestBackend[] = [{ name: "pglite", open: openPGliteTestDatabase }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) list.push({ name: "postgres", open: () => openPostgresTestDatabase(url) });
  return list;
}

async function openPGliteTestDatabase(): Promise<TestDatabase> {
  const handle = await openDatabase({ kind: "pglite-memory" });
  return { ...handle, destroy: () => handle.close() };
}

/** Creates an empty PostgreSQL database next to the one in `adminUrl`; returns its URL and a dropper. */
export async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `paylink_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

async function openPostgresTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const created = await createPostgresDatabase(adminUrl);
  const handle = await openDatabase({ kind: "postgres", url: created.url });
  return {
    ...handle,
    url: created.url,
    destroy: async () => {
      await handle.close();
      await created.drop();
    },
  };
}

/**
 * A handle on one session of `database`: on PostgreSQL a second handle with a single connection, so
 * what a session keeps (its prepared statements) can be read back; on PGlite the database itself.
 */
export async function oneSessionOf(database: TestDatabase): Promise<{ db: DatabaseHandle["db"]; close(): Promise<void> }> {
  if (!database.url) return { db: database.db, close: async () => {} };
  return openDatabase({ kind: "postgres", url: database.url, poolSize: 1 }, { migrate: false });
}
