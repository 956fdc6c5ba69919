// PGlite is one PostgreSQL backend with one session. Kysely's PGliteDriver hands that single
// connection to every caller at once, so a query issued while another request holds a
// transaction would run inside that transaction (and vanish with its rollback), and two
// transactions would overwrite each other's commit handles. This dialect gives the connection
// to one caller at a time — the behaviour of a pool of size one — which makes PGlite behave
// like PostgreSQL for our code. The price: code inside a transaction must use the transaction
// object, never the outer `db` (that would wait for itself).
import type { PGlite } from "@electric-sql/pglite";
import {
  type AbortableOperationOptions,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PGliteDialect,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { PGliteStatements } from "./pglite-statements.ts";
import { statementName } from "./prepared-statement.ts";

class ConnectionQueue {
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  async acquire(): Promise<void> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.#release = release;
  }

  release(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }
}

/** Kysely's PGlite connection, which runs the texts registered as named statements by their names. */
class SessionConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly statements: PGliteStatements,
  ) {}
  executeQuery<R>(query: CompiledQuery, options?: AbortableOperationOptions): Promise<QueryResult<R>> {
    const name = statementName(query.sql);
    if (name === undefined) return this.inner.executeQuery<R>(query, options);
    return this.statements.run<R>(name, query.sql, query.parameters);
  }
  streamQuery<R>(query: CompiledQuery, chunkSize: number, options?: AbortableOperationOptions): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize, options);
  }
}

class SerializedDriver implements Driver {
  readonly #queue = new ConnectionQueue();
  readonly #statements: PGliteStatements;
  #connection: SessionConnection | undefined;
  constructor(
    private readonly inner: Driver,
    pglite: PGlite,
  ) {
    this.#statements = new PGliteStatements(pglite);
  }

  init() {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#queue.acquire();
    const inner = await this.inner.acquireConnection();
    if (this.#connection?.inner !== inner) this.#connection = new SessionConnection(inner, this.#statements);
    return this.#connection;
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.releaseConnection(unwrap(connection));
    } finally {
      this.#queue.release();
    }
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(unwrap(connection), settings);
  }
  commitTransaction(connection: DatabaseConnection) {
    return this.inner.commitTransaction(unwrap(connection));
  }
  rollbackTransaction(connection: DatabaseConnection) {
    return this.inner.rollbackTransaction(unwrap(connection));
  }
  destroy() {
    return this.inner.destroy();
  }
}

/** Kysely's driver is handed its own connection object back (it keys transactions on it). */
function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof SessionConnection ? connection.inner : connection;
}

export class SerializedPGliteDialect extends PGliteDialect {
  readonly #pglite: PGlite;
  constructor(config: { pglite: PGlite }) {
    super(config);
    this.#pglite = config.pglite;
  }
  override createDriver(): Driver {
    return new SerializedDriver(super.createDriver(), this.#pglite);
  }
}
