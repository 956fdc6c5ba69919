// `paylink worker` stops like `paylink serve` (docs/decisions.md docs/decisions.md#shutdown-and-metrics): on SIGTERM, while a webhook
// send hangs at the receiver, it aborts the send after PAYLINK_SHUTDOWN_GRACE_SECONDS, hands the
// delivery back (pending, no lease) and exits 0 within a bounded time. Real processes on a real
// PostgreSQL (the worker process needs one); `paylink serve` beside it sends nothing itself.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openDatabase } from "../../src/db/connect.ts";
import { createPostgresDatabase } from "../support/databases.ts";
import { startPaylinkCommand, startServerProcess, TEST_PROCESS_SECRET_KEY } from "../support/process.ts";
import { assertDeliveriesHandedBack, cleanupsAfterFile, hangingReceiver, shopWithOneSale } from "../support/shutdown.ts";

const ADMIN_TOKEN = "worker-sigterm-admin-token-0123";
const GRACE_SECONDS = 1;

const cleanups = cleanupsAfterFile();

describe("paylink worker on SIGTERM", { skip: process.env.TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set" }, () => {
  test("a send hanging at the receiver is aborted after the grace period and handed back; exit 0 in time", async () => {
    const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    cleanups.push(() => database.drop());
    // The receiver holds every webhook without answering.
    const receiver = await hangingReceiver(cleanups);
    const env = {
      DATABASE_URL: database.url,
      PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN,
      PAYLINK_WEBHOOK_ALLOW_PRIVATE: "true",
      PAYLINK_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    };
    const server = await startServerProcess({ ...env, PAYLINK_WEBHOOK_WORKER: "false" });
    cleanups.push(() => server.stop("SIGKILL"));
    const { merchantId } = await shopWithOneSale(server.baseUrl, ADMIN_TOKEN, "Worker shop", receiver.url);

    const worker = startPaylinkCommand("worker", { ...env, PAYLINK_SECRET_KEY: TEST_PROCESS_SECRET_KEY, LOG_LEVEL: "info" });
    cleanups.push(() => worker.stop("SIGKILL"));
    await receiver.arrived; // the worker claimed the delivery and its send now hangs

    const signalledAt = Date.now();
    const exit = await worker.stop("SIGTERM");
    const seconds = (Date.now() - signalledAt) / 1000;
    const output = worker.output();
    assert.equal(exit, 0, output);
    // The send alone would run 10 s (its own timeout); the grace period is 1 s. Generous for a loaded machine.
    assert.ok(seconds < GRACE_SECONDS + 6, `exited ${seconds.toFixed(1)} s after SIGTERM`);
    assert.match(output, /shutting down/);
    assert.match(output, /aborting them; they will be sent again/);

    const inspect = await openDatabase({ kind: "postgres", url: database.url }, { migrate: false });
    try {
      await assertDeliveriesHandedBack(inspect.db, merchantId);
    } finally {
      await inspect.close();
    }
  });
});
