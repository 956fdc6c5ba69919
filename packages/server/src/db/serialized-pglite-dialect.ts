// PGlite is one PostgreSQL backend with one session. Kysely's PGliteDriver hands that single
// connection to every caller at once, so a query issued while another request holds a
// transaction would run inside that transaction (and vanish with its rollback), and two
// transactions would overwrite each other's commit handles. This dialect gives the connection
// to one caller at a time — the behaviour of a pool of size one — which makes PGlite behave
// like PostgreSQL for our code. The price: code inside a transaction must use the transaction
// object, never the outer `db` (that would wait for itself).
import { type DatabaseConnection, type Driver, PGliteDialect, type TransactionSettings } from "kysely";

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

class SerializedDriver implements Driver {
  readonly #queue = new ConnectionQueue();
  constructor(private readonly inner: Driver) {}

  init() {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#queue.acquire();
    return this.inner.acquireConnection();
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.releaseConnection(connection);
    } finally {
      this.#queue.release();
    }
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection) {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection) {
    return this.inner.rollbackTransaction(connection);
  }
  destroy() {
    return this.inner.destroy();
  }
}

export class SerializedPGliteDialect extends PGliteDialect {
  override createDriver(): Driver {
    return new SerializedDriver(super.createDriver());
  }
}
