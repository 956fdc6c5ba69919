// The hot paths' fixed statements run as named prepared statements (docs/decisions.md#named-statements):
// each pooled connection parses and plans one once, then only binds and runs it. A text is
// registered with its name (db/prepared-statement.ts) and both databases' connections run a
// registered text by its name. A statement's text names its columns (never `*`): a prepared
// `SELECT *` fails with "cached plan must not change result type" once a migration adds a column.
// A session keeps a statement's generic plan, perhaps made while the tables were small, so a row is
// found by its key alone and its owner checked in `(...) IS TRUE`, which no index can serve;
// test/prepared-statement-plans checks every statement declared here on grown tables.
import { createHash } from "node:crypto";
import { CompiledQuery, type QueryResult, type Transaction } from "kysely";
import type { Database } from "./connect.ts";
import { nameStatement, statementName } from "./prepared-statement.ts";
import type { DB } from "./schema.ts";

export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const declared = new Map<string, PreparedStatement>();

/** Declares a statement once, at module load; a name is for one text only. */
export function preparedStatement(name: string, text: string): PreparedStatement {
  if (declared.has(name)) throw new Error(`prepared statement ${name} is declared twice`);
  const statement = Object.freeze({ name, text });
  declared.set(name, statement);
  nameStatement(text, name);
  return statement;
}

/** Every statement the modules loaded so far declared, by name (the plan test checks each one). */
export function declaredStatements(): ReadonlyMap<string, PreparedStatement> {
  return declared;
}

/** Runs a declared statement with its parameters, in `db` or the transaction given. */
export function runPrepared<R>(
  db: Database | Transaction<DB>,
  statement: PreparedStatement,
  parameters: readonly unknown[],
): Promise<QueryResult<R>> {
  return db.executeQuery<R>(CompiledQuery.raw(statement.text, [...parameters]));
}

/**
 * Runs a query built with Kysely as a named statement named after its text. The checkout's
 * statements are long: parsing and planning them again on every payment halved its throughput on
 * one link. Only for statements whose text takes a handful of shapes (each shape is kept by every
 * connection for its life).
 */
export function runCompiledPrepared<R>(db: Database | Transaction<DB>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (statementName(query.sql) === undefined) {
    nameStatement(query.sql, `q_${createHash("sha256").update(query.sql).digest("hex").slice(0, 20)}`);
  }
  return db.executeQuery<R>(query);
}
