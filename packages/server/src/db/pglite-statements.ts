// Named prepared statements on PGlite. PGlite's own `query` sends Parse, Describe, Bind,
// Describe, Execute and Sync as six separate calls into the WebAssembly backend, and parses and
// plans the text every time: for the create's insert that was 0.8 ms of CPU where the statement's
// own work is a third of it. Here a named statement (db/prepared-statement.ts) is parsed once per PGlite
// instance (Parse + Describe + Sync, which tells its parameter types and result columns) and each
// run afterwards is Bind + Execute + Sync in one call, as pg does on PostgreSQL for the same
// statements: the same text, the same plans (PostgreSQL's plan cache decides the same way
// for both), the same values bound.
import { messages, type PGlite, parse, protocol } from "@electric-sql/pglite";
import type { QueryResult } from "kysely";

const { serialize } = protocol;

/** What a statement's Describe told: its parameters' type OIDs, its result columns (none for a plain insert). */
interface Described {
  parameterTypes: number[];
  columns: messages.RowDescriptionMessage | undefined;
}

/** SQLSTATE 26000: the session does not know the statement's name (someone ran DEALLOCATE). */
const UNKNOWN_STATEMENT = "26000";

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const message = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

export class PGliteStatements {
  readonly #described = new Map<string, Described>();

  constructor(private readonly pglite: PGlite) {}

  /**
   * Runs a declared statement on the session, inside whatever transaction the session is in. The
   * caller holds the session (the serialized dialect's one connection); PGlite's query lock is
   * taken as well, as its own `query` does, so nothing of PGlite's own can interleave.
   */
  run<R>(name: string, text: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    return this.pglite.runExclusive(async () => {
      try {
        const described = this.#described.get(name) ?? (await this.#prepare(name, text));
        const values = parameters.map((value, i) => this.#serialize(value, described.parameterTypes[i]));
        const bind = serialize.bind({ statement: name, values });
        const replies = await this.#send(concat([bind, serialize.execute({}), serialize.sync()]));
        const [result] = parse.parseResults(described.columns ? [described.columns, ...replies] : replies, this.pglite.parsers, {
          rowMode: "object",
        });
        return {
          rows: (result?.rows ?? []) as R[],
          numAffectedRows: result?.affectedRows != null ? BigInt(result.affectedRows) : undefined,
        };
      } catch (error) {
        if (error instanceof messages.DatabaseError) {
          if (error.code === UNKNOWN_STATEMENT) this.#described.delete(name);
          // The fields PGlite's own `query` adds to a database error.
          Object.assign(error, { query: text, params: parameters, queryOptions: undefined });
        }
        throw error;
      }
    });
  }

  async #prepare(name: string, text: string): Promise<Described> {
    const replies = await this.#send(
      concat([serialize.parse({ name, text, types: [] }), serialize.describe({ type: "S", name }), serialize.sync()]),
    );
    const described: Described = {
      parameterTypes: parse.parseDescribeStatementResults(replies),
      columns: replies.find((reply): reply is messages.RowDescriptionMessage => reply.name === "rowDescription"),
    };
    this.#described.set(name, described);
    return described;
  }

  /** A parameter as text, exactly as PGlite's `query` makes it from the type the server inferred. */
  #serialize(value: unknown, type: number | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serializer = type === undefined ? undefined : this.pglite.serializers[type];
    return serializer ? serializer(value) : String(value);
  }

  /** One call into the backend; the files are synced afterwards outside a transaction, as `query` does. */
  async #send(message: Uint8Array): Promise<messages.BackendMessage[]> {
    const { messages: replies } = await this.pglite.execProtocol(message, { syncToFs: false });
    if (!this.pglite.isInTransaction()) await this.pglite.syncToFs();
    return replies;
  }
}
