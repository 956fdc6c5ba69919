// Issue #5 acceptance 3 and 4 with real `paylink serve` processes and real payments:
//   3. a payment is made while the receiver is down, the server is killed with kill -9, the
//      receiver comes back, the server restarts: the webhook arrives;
//   4. two instances on one PostgreSQL and a healthy receiver: 500 payments produce exactly
//      500 webhook requests, none twice.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createPostgresDatabase } from "../support/databases.ts";
import {
  type CommandProcess,
  freePort,
  type ServerProcess,
  startPaylinkCommand,
  startServerProcess,
  TEST_PROCESS_SECRET_KEY,
} from "../support/process.ts";
import { CARDS, cardFields, createLink, pay } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";
import { type Receiver, startReceiver } from "./support.ts";

const ADMIN_TOKEN = "process-admin-token-0123456789";

const running: ServerProcess[] = [];
const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
  await Promise.all(receivers.map((r) => r.close()));
});

async function start(env: Record<string, string>) {
  const server = await startServerProcess({ PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN, PAYLINK_WEBHOOK_ALLOW_PRIVATE: "true", ...env });
  running.push(server);
  return server;
}

async function receiver(...args: Parameters<typeof startReceiver>) {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function admin(baseUrl: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  assert.equal(response.status, 200, JSON.stringify(json));
  return json;
}

/** A merchant with a terminal, an API key and a webhook endpoint at `webhookUrl`. */
async function provision(baseUrl: string, webhookUrl: string) {
  const { merchantId } = await admin(baseUrl, "POST", "/merchants", { name: "Process test shop" });
  const { terminalIdentifier } = await admin(baseUrl, "POST", `/merchants/${merchantId}/terminals`, {});
  const { apiKey } = await admin(baseUrl, "POST", `/merchants/${merchantId}/apikeys`, {});
  const webhook = await admin(baseUrl, "POST", `/merchants/${merchantId}/webhooks`, { url: webhookUrl });
  return { merchantId, terminalIdentifier, apiKey, webhook };
}

describe("embedded database: kill -9 while the receiver is down", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "paylink-webhook-process-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test("the webhook of a payment made before the crash arrives after the restart", async () => {
    const receiverPort = await freePort();
    const webhookUrl = `http://127.0.0.1:${receiverPort}/hooks`;
    const first = await start({ PAYLINK_DATA_DIR: dataDir });
    const shop = await provision(first.baseUrl, webhookUrl);
    const reference = await createLink(
      { baseUrl: first.baseUrl, ...shop },
      {
        amount: 150000,
        returnUrl: "http://localhost/thanks",
      },
    );

    const paid = await pay(first.baseUrl, reference, cardFields(CARDS.visa));
    assert.equal(paid.status, 303);
    // The first attempt has met a closed port, and the delivery waits for its retry.
    const logged = await waitUntil(async () => {
      const log = await admin(first.baseUrl, "GET", `/merchants/${shop.merchantId}/deliveries`);
      return log.data[0]?.attempts.length >= 1 && log.data[0];
    });
    assert.equal(logged.state, "Pending");
    assert.match(logged.attempts[0].error, /connection refused/);

    first.child.kill("SIGKILL");
    assert.equal(await first.exited, "SIGKILL");

    const hook = await receiver(() => ({ status: 200, body: "ok" }), receiverPort);
    const second = await start({ PAYLINK_DATA_DIR: dataDir });
    const [request] = await hook.waitFor(1, 20_000);
    const body = JSON.parse(request!.body);
    assert.equal(body.checkoutReference, paid.checkoutReference);
    assert.equal(body.merchantReference, reference);
    assert.equal(request!.headers["webhook-id"], logged.deliveryId);
    assert.equal(request!.headers.authorization, shop.webhook.apiKey);

    const delivered = await waitUntil(async () => {
      const log = await admin(second.baseUrl, "GET", `/merchants/${shop.merchantId}/deliveries`);
      return log.data[0]?.state === "Delivered" && log.data[0];
    });
    assert.equal(delivered.attempts.length, 2);
    assert.equal(await second.stop(), 0, "a clean stop after the worker drained");
    // Stopped after draining: every request the server sent has arrived.
    assert.equal(hook.requests.length, 1, "delivered once");
  });
});

describe("PostgreSQL: two instances, 500 payments", {
  skip: process.env.TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set",
}, () => {
  test("exactly 500 webhook requests, each payment's once", async () => {
    const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    try {
      const hook = await receiver(() => ({ status: 200, body: "ok" }));
      const env = { DATABASE_URL: database.url };
      const [a, b] = await Promise.all([start(env), start(env)]);
      const shop = await provision(a!.baseUrl, hook.url);
      const reference = await createLink(
        { baseUrl: a!.baseUrl, ...shop },
        {
          amount: 1000,
          returnUrl: "http://localhost/thanks",
        },
      );

      const references: string[] = [];
      let next = 0;
      const started = Date.now();
      // 8 shoppers at a time, alternating between the two instances.
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < 500) {
            const index = next++;
            const paid = await pay((index % 2 === 0 ? a! : b!).baseUrl, reference, cardFields(CARDS.visa));
            assert.equal(paid.status, 303);
            references.push(paid.checkoutReference!);
          }
        }),
      );
      const paidIn = Date.now() - started;
      await hook.waitFor(500, 20_000);
      const log = await waitUntil(
        async () => {
          const page = await admin(b!.baseUrl, "GET", `/merchants/${shop.merchantId}/deliveries?state=Delivered&pageSize=1`);
          return page.totalCount === 500 && page;
        },
        20_000,
        "500 deliveries recorded as delivered",
      );
      assert.equal(log.totalCount, 500);
      const attempts = await admin(b!.baseUrl, "GET", `/merchants/${shop.merchantId}/deliveries?pageSize=100&page=0`);
      assert.ok(
        attempts.data.every((delivery: any) => delivery.attempts.length === 1),
        "one attempt each",
      );
      // A clean stop drains each instance's worker: after it, a duplicate would have arrived.
      assert.deepEqual(await Promise.all([a!.stop(), b!.stop()]), [0, 0], "both instances stopped cleanly");

      assert.equal(hook.requests.length, 500);
      const webhookIds = new Set(hook.requests.map((request) => String(request.headers["webhook-id"])));
      assert.equal(webhookIds.size, 500, "no webhook-id twice");
      const received = hook.requests.map((request) => JSON.parse(request.body).checkoutReference as string);
      assert.equal(new Set(received).size, 500);
      assert.deepEqual([...received].sort(), [...references].sort(), "one message per payment");
      process.stdout.write(`# 500 payments on two instances in ${paidIn} ms; 500 webhooks, 500 distinct\n`);
    } finally {
      await database.drop();
    }
  });
});

/** Runs `paylink <command>` to its end (killed after 30 s): its exit code and everything it printed. */
async function runPaylink(command: string, env: Record<string, string>): Promise<{ code: number | string; output: string }> {
  const run = startPaylinkCommand(command, { LOG_LEVEL: "info", ...env });
  const timer = setTimeout(() => run.stop("SIGKILL"), 30_000);
  const code = await run.exited;
  clearTimeout(timer);
  return { code, output: run.output() };
}

describe("configuration and the worker command", () => {
  test("`paylink worker` on the embedded database explains that serve delivers webhooks itself", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "paylink-worker-"));
    try {
      const { code, output } = await runPaylink("worker", { PAYLINK_DATA_DIR: dataDir, DATABASE_URL: "" });
      assert.equal(code, 1);
      assert.match(output, /paylink worker needs DATABASE_URL/);
      assert.match(output, /just run `paylink serve`/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("PostgreSQL without PAYLINK_SECRET_KEY, or with another key than the stored secrets', refuses to start", {
    skip: process.env.TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set",
  }, async () => {
    const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    try {
      const missing = await runPaylink("serve", { DATABASE_URL: database.url, PAYLINK_SECRET_KEY: "", PORT: String(await freePort()) });
      assert.equal(missing.code, 1);
      assert.match(missing.output, /PAYLINK_SECRET_KEY must be set when DATABASE_URL is set/);

      const hook = await receiver();
      const server = await start({ DATABASE_URL: database.url });
      await provision(server.baseUrl, hook.url);
      await server.stop();
      const wrongKey = await runPaylink("serve", {
        DATABASE_URL: database.url,
        PAYLINK_SECRET_KEY: "1".repeat(64),
        PORT: String(await freePort()),
      });
      assert.equal(wrongKey.code, 1);
      assert.match(wrongKey.output, /secrets in the database were encrypted with key id\(s\) [0-9a-f]{8}/);
    } finally {
      await database.drop();
    }
  });

  test("serve with PAYLINK_WEBHOOK_WORKER=false and a separate `paylink worker` process: the webhook arrives", {
    skip: process.env.TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set",
  }, async () => {
    const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    let worker: CommandProcess | undefined;
    try {
      const hook = await receiver();
      const server = await start({ DATABASE_URL: database.url, PAYLINK_WEBHOOK_WORKER: "false" });
      const shop = await provision(server.baseUrl, hook.url);
      const reference = await createLink(
        { baseUrl: server.baseUrl, ...shop },
        {
          amount: 5000,
          returnUrl: "http://localhost/thanks",
        },
      );
      const paid = await pay(server.baseUrl, reference, cardFields(CARDS.visa));
      // A sleep, not a wait: a worker that is not running has nothing to report. 1.5 s is more
      // than a worker's wake-up on a payment plus one idle poll (1 s), so one would have sent by now.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(hook.requests.length, 0, "serve alone sends nothing");

      worker = startPaylinkCommand("worker", {
        LOG_LEVEL: "info",
        DATABASE_URL: database.url,
        PAYLINK_SECRET_KEY: TEST_PROCESS_SECRET_KEY,
        PAYLINK_WEBHOOK_ALLOW_PRIVATE: "true",
      });
      const [request] = await hook.waitFor(1, 15_000);
      assert.equal(JSON.parse(request!.body).checkoutReference, paid.checkoutReference);
      await waitUntil(async () => {
        const log = await admin(server.baseUrl, "GET", `/merchants/${shop.merchantId}/deliveries`);
        return log.data[0]?.state === "Delivered";
      });
      // SIGTERM: the worker stops cleanly.
      assert.equal(await worker.stop("SIGTERM"), 0, worker.output());
      assert.match(worker.output(), /Paylink webhook worker running/);
    } finally {
      // A failed assertion must not leave the worker holding the database it drops.
      await worker?.stop("SIGKILL");
      await database.drop();
    }
  });
});
