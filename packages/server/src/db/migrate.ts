// Plain SQL migrations, applied in name order at start. All of them run in one transaction under
// an advisory lock, so several instances starting together on one PostgreSQL apply each file once.
import { readdirSync, readFileSync } from "node:fs";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { DB } from "./schema.ts";

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
/** An arbitrary constant that names "Paylink's migration lock" among PostgreSQL advisory locks. */
const MIGRATION_LOCK_ID = 727_561_001;

export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort();
}

/** Applies pending migrations; returns the names it applied. */
export async function migrate(db: Kysely<DB>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`.execute(trx);
    const applied = new Set((await trx.selectFrom("schema_migrations").select("name").execute()).map((row) => row.name));
    const pending = migrationFiles().filter((name) => !applied.has(name));
    for (const name of pending) {
      const text = readFileSync(new URL(name, MIGRATIONS_DIR), "utf8");
      for (const statement of splitStatements(text)) await sql.raw(statement).execute(trx);
      await trx.insertInto("schema_migrations").values({ name }).execute();
    }
    return pending;
  });
}

/**
 * PGlite runs one statement per query (extended protocol), so files are split into statements
 * at each `;` that ends a line. Migrations therefore keep to plain DDL/DML; a function body (a
 * trigger's) is written on one line, so that none of its own `;` ends a line.
 */
export function splitStatements(text: string): string[] {
  return text
    .split(/;[ \t]*(?:--[^\n]*)?$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, "").trim())
    .filter((statement) => statement.length > 0);
}
