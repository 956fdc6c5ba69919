// The set-up the worker tests share, per describe block: a fresh database, and workers and receivers
// that are stopped after each test (a worker left running would send the next test's deliveries).
import { EventEmitter } from "node:events";
import { after, afterEach, before } from "node:test";
import type { Database } from "../../src/db/connect.ts";
import { enqueuePaymentWebhook } from "../../src/webhooks/outbox.ts";
import { WebhookWorker, type WebhookWorkerOptions } from "../../src/webhooks/worker.ts";
import type { TestBackend, TestDatabase } from "../support/databases.ts";
import { startHangingReceiver } from "./receivers.ts";
import { type Receiver, sampleMessage, startReceiver, testKeyring } from "./support.ts";

export interface WorkerTestBed {
  readonly db: Database;
  /** On PostgreSQL, the test database's URL, for a second pool of connections (another instance). */
  readonly url: string | undefined;
  /** Runs `step` after the current test; steps run in the reverse order of their registration. */
  later(step: () => Promise<unknown>): void;
  /** A started worker with a wake-up signal of its own, so workers of different tests never wake each other. */
  worker(options?: Partial<WebhookWorkerOptions>): { instance: WebhookWorker; wake(): void };
  receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver>;
  hangingReceiver(): ReturnType<typeof startHangingReceiver>;
  /** Queues `count` payments' messages the way payments do, in one transaction (to be quick); the merchant's delivery ids. */
  enqueueMany(merchantId: string, count: number): Promise<string[]>;
}

/**
 * Registers the describe block's hooks. With `disableEndpointsAfterEach`, the tests share the
 * database's endpoints no further: what one test left pending is not sent by the next one's workers.
 */
export function workerTestBed(backend: TestBackend, options: { disableEndpointsAfterEach?: boolean } = {}): WorkerTestBed {
  let database: TestDatabase;
  let cleanup: (() => Promise<unknown>)[] = [];
  before(async () => {
    database = await backend.open();
  });
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
    if (options.disableEndpointsAfterEach) await database.db.updateTable("webhook_endpoints").set({ enabled: false }).execute();
  });
  after(async () => {
    await database.destroy();
  });

  const keyring = testKeyring();
  const later = (step: () => Promise<unknown>) => {
    cleanup.push(step);
  };
  return {
    get db() {
      return database.db;
    },
    get url() {
      return database.url;
    },
    later,
    worker(workerOptions = {}) {
      const signal = new EventEmitter();
      const instance = new WebhookWorker({
        db: database.db,
        keyring,
        allowPrivate: true,
        idleIntervalMs: 50,
        signal,
        ...workerOptions,
      }).start();
      later(() => instance.stop(100));
      return { instance, wake: () => signal.emit("wake") };
    },
    async receiver(...args) {
      const started = await startReceiver(...args);
      later(() => started.close());
      return started;
    },
    async hangingReceiver() {
      const started = await startHangingReceiver();
      later(() => started.close());
      return started;
    },
    enqueueMany(merchantId, count) {
      return database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < count; i++) await enqueuePaymentWebhook(trx, merchantId, "Authorization", sampleMessage());
        const rows = await trx.selectFrom("webhook_deliveries").select("id").where("merchant_id", "=", merchantId).execute();
        return rows.map((row) => row.id);
      });
    },
  };
}
