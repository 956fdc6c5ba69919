// Fixed statements of the API's hot paths as named prepared statements: each pooled connection
// has PostgreSQL parse and plan such a statement once, then only binds and runs it, where an
// unnamed statement is parsed and planned again on every request (about half of PostgreSQL's CPU
// time for a link's read, far more on PGlite). A statement's text is registered with its name
// (db/prepared-statement.ts); the connections of both databases run registered texts by name.
//
// A statement's text names its columns (never `*`): a prepared `SELECT *` fails with "cached
// plan must not change result type" once a migration adds a column under a running instance.
// A session keeps the generic plan it made of a statement, perhaps while the tables were small,
// until their statistics change: on the embedded database never (it has no autovacuum), on
// PostgreSQL when autovacuum analyses them. On a small table a row's key and its owner's index cost
// the planner the same, and a plan that reached a link through its merchant's index read every
// link of the merchant on each call once there were thousands. So a row is found by its key alone,
// and its owner checked in `(...) IS TRUE`, which no index can serve. Planning every run for its
// values instead (`plan_cache_mode = force_custom_plan`) was tried: without statistics the list's
// page then read all of the merchant's links. test/prepared-statement-plans checks every statement
// declared here against a kept plan on grown tables.
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
