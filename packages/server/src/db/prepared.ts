// Fixed statements of the API's hot paths as named prepared statements on PostgreSQL: each
// pooled connection has PostgreSQL parse and plan such a statement once, then only binds and
// runs it, where an unnamed statement is parsed and planned again on every request (about half of
// PostgreSQL's CPU time for a link's read). On PGlite the serialized dialect's connection runs them
// as named statements of its one session too (db/pglite-statements.ts).
//
// A statement's text names its columns (never `*`): a prepared `SELECT *` fails with "cached
// plan must not change result type" once a migration adds a column under a running instance.
//
// A session keeps the generic plan it made of a statement, perhaps while the tables were small,
// until their statistics change: on the embedded database never, on PostgreSQL when autovacuum
// analyses them. On a small table a row's key and its owner's index cost the planner the same, and
// a plan that reached a link through its merchant's index read every link of the merchant on each
// call once there were thousands. So a row is found by its key alone, and its owner (or state)
// checked in `(...) IS TRUE`, which no index can serve; test/prepared-statement-plans
// checks every statement declared here against a kept plan.
import { createHash } from "node:crypto";
import { CompiledQuery, type QueryResult, type Transaction } from "kysely";
import type { Database } from "./connect.ts";
import type { PreparedStatement, PreparedStatementRunner } from "./prepared-statement.ts";
import type { DB } from "./schema.ts";

const declared = new Map<string, PreparedStatement>();

/** Declares a statement once, at module load; a name is for one text only. */
export function preparedStatement(name: string, text: string): PreparedStatement {
  if (declared.has(name)) throw new Error(`prepared statement ${name} is declared twice`);
  const statement = Object.freeze({ name, text });
  declared.set(name, statement);
  return statement;
}

/** Every statement the modules loaded so far declared, by name (the plan test checks each one). */
export function declaredStatements(): ReadonlyMap<string, PreparedStatement> {
  return declared;
}

/** The driver's connection class on PostgreSQL (kysely's PostgresDriver over pg). */
const PG_CONNECTION = "PostgresConnection";

/**
 * Runs a declared statement. On pg the query handed over is a query config with the statement's
 * name (pg's Client.query takes one where Kysely passes its SQL text): pg then sends Parse only the
 * first time on each connection, and Bind/Execute after that.
 */
export function runPrepared<R>(
  db: Database | Transaction<DB>,
  statement: PreparedStatement,
  parameters: readonly unknown[],
): Promise<QueryResult<R>> {
  return db.getExecutor().provideConnection(async (connection) => {
    if ("executePrepared" in connection) return (connection as PreparedStatementRunner).executePrepared<R>(statement, parameters);
    const query = CompiledQuery.raw(statement.text, parameters as unknown[]);
    if (connection.constructor.name !== PG_CONNECTION) return connection.executeQuery<R>(query);
    const config = { name: statement.name, text: statement.text } as unknown as string;
    return connection.executeQuery<R>({ ...query, sql: config });
  });
}

const namesByText = new Map<string, string>();

/**
 * Runs a query built with Kysely as a named statement named after its text. The checkout's
 * statements are long: parsing and planning them again on every payment halved its throughput on
 * one link. Only for statements whose text takes a handful of shapes (each shape is kept by every
 * connection for its life).
 */
export function runCompiledPrepared<R>(db: Database | Transaction<DB>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  let name = namesByText.get(query.sql);
  if (name === undefined) {
    name = `q_${createHash("sha256").update(query.sql).digest("hex").slice(0, 20)}`;
    namesByText.set(query.sql, name);
  }
  return runPrepared<R>(db, { name, text: query.sql }, query.parameters);
}
