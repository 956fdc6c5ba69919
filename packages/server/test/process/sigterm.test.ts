// Issue #12 finding 9: SIGTERM under load, with a real `paylink serve` process on each database.
// Clients keep creating links over fresh connections; one request is in flight with half its body
// sent when the signal arrives; a webhook send hangs at the receiver. The process must finish the
// request in flight (200), answer a request that still arrives on its open connection 503 `5004`
// with Retry-After, refuse new connections, never answer 500, hand the hanging delivery back
// (pending, no lease), and exit 0 within a bounded time. Every create that reached the database
// was answered 200: nothing was done without its client hearing of it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type Database, openDatabase } from "../../src/db/connect.ts";
import { createPostgresDatabase } from "../support/databases.ts";
import { type ServerProcess, startServerProcess } from "../support/process.ts";
import { assertDeliveriesHandedBack, cleanupsAfterFile, hangingReceiver, shopWithOneSale } from "../support/shutdown.ts";
import { waitUntil } from "../support/wait.ts";

const ADMIN_TOKEN = "sigterm-admin-token-0123456789";
const GRACE_SECONDS = 2;

const cleanups = cleanupsAfterFile();

/** One request on a connection of its own; resolves with the status, or the socket error's code. */
function createOverFreshConnection(baseUrl: string, apiKey: string, body: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest(
      `${baseUrl}/api/v1/paymentlinks/create`,
      { method: "POST", agent: false, headers: { "x-api-key": apiKey, "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "response error"));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

const backends = [
  { name: "embedded", skip: false as const },
  { name: "postgres", skip: process.env.TEST_DATABASE_URL ? (false as const) : "TEST_DATABASE_URL is not set" },
];

for (const backend of backends) {
  describe(`SIGTERM under load (${backend.name})`, { skip: backend.skip }, () => {
    test("in-flight requests finish, later ones get 503 or a refused connection, the claimed webhook is handed back, exit 0 in time", async () => {
      let env: Record<string, string>;
      let inspect: () => Promise<{ db: Database; close(): Promise<void> }>;
      if (backend.name === "postgres") {
        const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
        cleanups.push(() => database.drop());
        env = { DATABASE_URL: database.url };
        inspect = () => openDatabase({ kind: "postgres", url: database.url }, { migrate: false });
      } else {
        const dataDir = mkdtempSync(join(tmpdir(), "paylink-sigterm-"));
        cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
        env = { PAYLINK_DATA_DIR: dataDir };
        inspect = () => openDatabase({ kind: "pglite", dataDir }, { migrate: false });
      }
      // The receiver holds every webhook without answering: a send in flight at shutdown.
      const receiver = await hangingReceiver(cleanups);
      const server: ServerProcess = await startServerProcess({
        ...env,
        PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN,
        PAYLINK_WEBHOOK_ALLOW_PRIVATE: "true",
        PAYLINK_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
        LOG_LEVEL: "info",
      });
      cleanups.push(() => server.stop("SIGKILL"));
      const { merchantId, terminalIdentifier, apiKey } = await shopWithOneSale(server.baseUrl, ADMIN_TOKEN, "Shutdown shop", receiver.url);
      await receiver.arrived;

      const body = JSON.stringify({ type: "TokenizeByLink", terminalIdentifier, amount: 0, currency: "ISK" });
      // A request in flight: headers and half the body now, the rest after the signal; then a
      // second request pipelined on the same connection.
      const slow = connect(server.port, "127.0.0.1");
      let slowAnswer = "";
      slow.on("data", (chunk) => (slowAnswer += chunk));
      const slowClosed = new Promise((resolve) => slow.on("close", resolve));
      const head = (length: number) =>
        `POST /api/v1/paymentlinks/create HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
      slow.write(head(body.length) + body.slice(0, 10));

      const outcomes: Array<number | string> = [];
      let loadRunning = true;
      const clients = Array.from({ length: 4 }, async () => {
        while (loadRunning) {
          const outcome = await createOverFreshConnection(server.baseUrl, apiKey, body);
          outcomes.push(outcome);
          if (outcome === "ECONNREFUSED") return;
        }
      });
      await waitUntil(async () => outcomes.filter((outcome) => outcome === 200).length >= 10, 30_000, "load running");

      const signalledAt = Date.now();
      server.child.kill("SIGTERM");
      await waitUntil(async () => /shutting down/.test(server.output()), 10_000, "the shutdown log line");
      slow.write(body.slice(10) + head(body.length) + body);
      const exit = await server.exited;
      const seconds = (Date.now() - signalledAt) / 1000;
      loadRunning = false;
      await Promise.all(clients);
      await slowClosed;

      assert.equal(exit, 0, server.output());
      assert.ok(seconds < GRACE_SECONDS + 8, `exited ${seconds.toFixed(1)} s after SIGTERM`);
      const answers = slowAnswer.split(/(?=HTTP\/1\.1 )/);
      assert.match(answers[0] ?? "", /^HTTP\/1\.1 200 /, `the request in flight finished: ${slowAnswer}`);
      // The request pipelined behind it arrived after the signal: refused in our format.
      assert.match(answers[1] ?? "", /^HTTP\/1\.1 503 /, slowAnswer);
      assert.match(answers[1]!, /retry-after: \d+/i);
      assert.match(answers[1]!, /connection: close/i);
      assert.match(answers[1]!, /"errorCode":"5004"/);
      const statuses = outcomes.filter((outcome): outcome is number => typeof outcome === "number");
      assert.deepEqual(
        outcomes.filter((outcome) => outcome !== 200 && outcome !== 503 && outcome !== "ECONNREFUSED" && outcome !== "ECONNRESET"),
        [],
        `outcomes: ${JSON.stringify(outcomes)}`,
      );
      assert.ok(outcomes.includes("ECONNREFUSED"), "new connections are refused once the server stops listening");

      const database = await inspect();
      try {
        const links = await database.db
          .selectFrom("payment_links")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("merchant_id", "=", merchantId)
          .executeTakeFirstOrThrow();
        const created = statuses.filter((status) => status === 200).length;
        // The paid link, the slow request's link, and one per 200: a create that was done was answered.
        assert.equal(Number(links.count), created + 2, `links ${links.count}, 200s ${created}`);
        await assertDeliveriesHandedBack(database.db, merchantId);
      } finally {
        await database.close();
      }
      assert.match(server.output(), /aborting them; they will be sent again/);
    });
  });
}
