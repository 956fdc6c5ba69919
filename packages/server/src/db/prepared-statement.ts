// What a declared statement is (db/prepared.ts declares and runs them), apart from the code that
// runs them, so the PGlite dialect that also runs them needs nothing from connect.ts.
import type { QueryResult } from "kysely";

export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** A connection that runs declared statements itself (the serialized PGlite dialect's). */
export interface PreparedStatementRunner {
  executePrepared<R>(statement: PreparedStatement, parameters: readonly unknown[]): Promise<QueryResult<R>>;
}
