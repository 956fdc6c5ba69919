// Issue #12 finding 6: the database going away. While PostgreSQL cannot be reached (its
// connections killed, connections refused), every request that needs it answers 503 `5003` with
// Retry-After, never 500 `5000`; /readyz says 503; what was accepted before is still there after;
// and the same server recovers by itself. The server reaches its database through a TCP proxy
// the test controls, so the shared PostgreSQL itself is never touched.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { isDatabaseUnavailable } from "../../src/db/unavailable.ts";
import { testBackends } from "../support/databases.ts";
import { assertEnvelope } from "../support/fixtures.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { cardFields, createLink, getPage, pay } from "../support/shopper.ts";
import { databaseAddress, startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { waitUntil } from "../support/wait.ts";

const postgres = testBackends().find((backend) => backend.name === "postgres");

describe("the database going away (PostgreSQL)", { skip: postgres ? false : "TEST_DATABASE_URL is not set" }, () => {
  let direct: TestServer;
  let server: TestServer;
  let proxy: TcpProxy;
  before(async () => {
    direct = await startTestServer({ backend: postgres! });
    proxy = await startTcpProxy(databaseAddress(direct.database.url!));
    server = await startSecondInstance(direct, { databaseUrl: proxy.urlThrough(direct.database.url!) });
  });
  after(async () => {
    await server?.close();
    await proxy?.close();
    await direct?.close();
  });

  async function assertUnavailable(response: Response, what: string) {
    assert.equal(response.status, 503, `${what}: ${response.status}`);
    const retryAfter = Number(response.headers.get("retry-after"));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `${what}: Retry-After ${response.headers.get("retry-after")}`);
    if (response.headers.get("content-type")?.startsWith("application/json")) {
      const body = (await response.json()) as any;
      assert.equal(body.errorCode, "5003", what);
      assertEnvelope(body);
      assert.doesNotMatch(body.errorMessage, /ECONN|pg|sql|terminat/i);
    } else {
      assert.match(await response.text(), /try again/i, what);
    }
  }

  test("refused connections: every request 503 with Retry-After, /readyz 503; afterwards everything accepted is still there", async () => {
    await addWebhookEndpoint(server);
    const target = { baseUrl: server.baseUrl, apiKey: server.apiKey, terminalIdentifier: server.terminalIdentifier };
    const reference = await createLink(target);
    const paid = await pay(server.baseUrl, reference, cardFields());
    assert.equal(paid.status, 200, "the payment before the outage is approved");
    const queued = (await outboxMessages(direct)).length;
    assert.ok(queued > 0, "the payment queued webhooks");

    await proxy.refuse();
    const headers = { "x-api-key": server.apiKey, "content-type": "application/json" };
    await assertUnavailable(await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers: { "x-api-key": server.apiKey } }), "list");
    await assertUnavailable(
      await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, {
        method: "POST",
        headers: { ...headers, "idempotency-key": "outage-1" },
        body: JSON.stringify({ type: "TokenizeByLink", terminalIdentifier: server.terminalIdentifier, amount: 0, currency: "ISK" }),
      }),
      "create",
    );
    await assertUnavailable(await fetch(`${server.baseUrl}/pay/${reference}`), "checkout page");
    await assertUnavailable(
      await fetch(`${server.baseUrl}/pay/${reference}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(cardFields()).toString(),
      }),
      "checkout post",
    );
    const ready = await fetch(`${server.baseUrl}/readyz`);
    assert.equal(ready.status, 503);
    assert.ok(ready.headers.get("retry-after"), "/readyz says when to look again");
    assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200, "the process itself is alive");
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    assert.match(metrics, /^paylink_database_up 0$/m);
    assert.match(metrics, /paylink_http_requests_total\{method="GET",route="\/api\/v1\/paymentlinks",status="503"\} 1/);

    await proxy.accept();
    await waitUntil(async () => (await fetch(`${server.baseUrl}/readyz`)).status === 200, 15_000, "ready again");
    const read = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.paymentLink.salesCount, 1, "the sale made before the outage is there");
    assert.equal((await outboxMessages(direct)).length, queued, "its webhook rows too");
    // The idempotency key of the refused create is free: the retry creates the link.
    const retried = await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": "outage-1" },
      body: JSON.stringify({ type: "TokenizeByLink", terminalIdentifier: server.terminalIdentifier, amount: 0, currency: "ISK" }),
    });
    assert.equal(retried.status, 200);
    assert.match(await (await fetch(`${server.baseUrl}/metrics`)).text(), /^paylink_database_up 1$/m);
  });

  test("connections killed under load: answers are 200 or 503 5003, never 500, and the server recovers by itself", async () => {
    const target = { baseUrl: server.baseUrl, apiKey: server.apiKey, terminalIdentifier: server.terminalIdentifier };
    const reference = await createLink(target);
    const statuses = new Map<number, number>();
    let stop = false;
    const client = async () => {
      while (!stop) {
        const response = await fetch(`${server.baseUrl}/api/v1/paymentlinks/${reference}`, { headers: { "x-api-key": server.apiKey } });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status !== 200) await assertUnavailable(response, "under load");
        else await response.arrayBuffer();
      }
    };
    const clients = Array.from({ length: 6 }, client);
    // Kill every connection a few times while requests are running on them.
    for (let i = 0; i < 5; i++) {
      await waitUntil(async () => proxy.connections > 0, 5000, "connections open");
      await new Promise((resolve) => setTimeout(resolve, 50));
      proxy.dropConnections();
    }
    stop = true;
    await Promise.all(clients);
    assert.deepEqual(
      [...statuses.keys()].filter((status) => status !== 200 && status !== 503),
      [],
      `statuses ${JSON.stringify([...statuses])}`,
    );
    assert.equal((await server.api("GET", `/api/v1/paymentlinks/${reference}`)).status, 200, "recovered without a restart");
    assert.equal((await getPage(server.baseUrl, `/pay/${reference}`)).status, 200);
  });
});

describe("what counts as the database being away: real errors from pg", { skip: postgres ? false : "TEST_DATABASE_URL is not set" }, () => {
  const adminUrl = process.env.TEST_DATABASE_URL!;

  test("a terminated backend (57P01), the query after it, and a refused connection are unavailable; a SQL error is not", async () => {
    const victim = new pg.Client({ connectionString: adminUrl });
    victim.on("error", () => {});
    await victim.connect();
    const pid = (await victim.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    const running = victim.query("SELECT pg_sleep(10)").catch((error: unknown) => error);
    const killer = new pg.Client({ connectionString: adminUrl });
    await killer.connect();
    // Only this test's own backend, found by its pid.
    await waitUntil(async () => {
      const { rows } = await killer.query("SELECT state FROM pg_stat_activity WHERE pid = $1", [pid]);
      return rows[0]?.state === "active";
    });
    await killer.query("SELECT pg_terminate_backend($1)", [pid]);
    const terminated = await running;
    assert.ok(isDatabaseUnavailable(terminated), `terminated: ${String(terminated)}`);
    const afterwards = await victim.query("SELECT 1").catch((error: unknown) => error);
    assert.ok(isDatabaseUnavailable(afterwards), `after: ${String(afterwards)}`);

    const syntax = await killer.query("SELEC 1").catch((error: unknown) => error);
    assert.equal(isDatabaseUnavailable(syntax), false, "a SQL error is a bug, not an outage");
    const unique = await killer.query("SELECT 1/0").catch((error: unknown) => error);
    assert.equal(isDatabaseUnavailable(unique), false);
    await killer.end();

    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    const refused = await new pg.Client({ host: "127.0.0.1", port: closedPort, user: "x" }).connect().catch((error: unknown) => error);
    assert.ok(isDatabaseUnavailable(refused), `refused: ${String(refused)}`);
  });

  test("a pool that cannot get a connection in time (a server that accepts and never answers) is unavailable", async () => {
    const silent = createServer(() => {}).listen(0, "127.0.0.1");
    await new Promise((resolve) => silent.once("listening", resolve));
    const port = (silent.address() as { port: number }).port;
    const pool = new pg.Pool({ host: "127.0.0.1", port, user: "x", connectionTimeoutMillis: 200 });
    const error = await pool.query("SELECT 1").catch((caught: unknown) => caught);
    assert.ok(isDatabaseUnavailable(error), `timeout: ${String(error)}`);
    await pool.end().catch(() => {});
    silent.close();
  });
});
