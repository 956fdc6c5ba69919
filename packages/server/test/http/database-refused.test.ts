// The database refusing connections as an operator makes it (ALTER DATABASE … ALLOW_CONNECTIONS
// false and its sessions terminated: SQLSTATE 55000 and 57P01), on this test's own database only.
// Every answer is 503 with Retry-After — the envelope 5003 on the API, a calm page on checkout and
// portal — with nothing internal in any body; a key whose request failed in the outage works again
// as soon as the database is back; and an error raised while an error is being answered still
// answers in our format.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { buildApp } from "../../src/app.ts";
import { jsonErrorHandler } from "../../src/http/errors.ts";
import { testBackends } from "../support/databases.ts";
import { assertEnvelope, payByLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { signedIn } from "../support/portal.ts";
import { cardFields, createLink } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";

const postgres = testBackends().find((backend) => backend.name === "postgres");
const INTERNAL = /ECONN|FST_|pg_|postgres|SQL|terminat|stack|statusCode|not currently accepting|at \w+ \(/i;

async function assertCalm503(response: Response, what: string): Promise<void> {
  const text = await response.text();
  assert.equal(response.status, 503, `${what}: ${response.status} ${text.slice(0, 200)}`);
  assert.ok(Number(response.headers.get("retry-after")) >= 1, `${what}: Retry-After ${response.headers.get("retry-after")}`);
  assert.doesNotMatch(text, INTERNAL, what);
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    const body = JSON.parse(text);
    assert.equal(body.errorCode, "5003", what);
    assertEnvelope(body);
  } else {
    assert.match(text, /<html/i, what);
    assert.match(text, /try again|reyndu aftur/i, what);
  }
}

describe("the database refusing connections (PostgreSQL)", { skip: postgres ? false : "TEST_DATABASE_URL is not set" }, () => {
  let server: TestServer;
  let databaseName: string;
  const admin = () => new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  async function asAdmin(statement: string, values: unknown[] = []) {
    const client = admin();
    await client.connect();
    try {
      return await client.query(statement, values);
    } finally {
      await client.end();
    }
  }
  const refuse = async (except?: number) => {
    await asAdmin(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS false`);
    await asAdmin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> coalesce($2, 0)", [
      databaseName,
      except ?? null,
    ]);
  };
  const accept = async () => {
    await asAdmin(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`);
    await waitUntil(async () => (await fetch(`${server.baseUrl}/readyz`)).status === 200, 15_000, "ready again");
  };

  before(async () => {
    server = await startTestServer({ backend: postgres! });
    databaseName = new URL(server.database.url!).pathname.slice(1);
  });
  after(async () => {
    if (databaseName) await asAdmin(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`).catch(() => {});
    await server?.close();
  });

  test("API, checkout and portal answer 503 with Retry-After and nothing internal; all is well afterwards", async () => {
    const reference = await createLink(server);
    const portal = await signedIn(server);
    const linkBody = payByLink(server);
    await refuse();
    try {
      const apiHeaders = { "x-api-key": server.apiKey, "content-type": "application/json" };
      for (let round = 0; round < 3; round++) {
        await assertCalm503(await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers: apiHeaders }), "list");
        await assertCalm503(
          await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, {
            method: "POST",
            headers: { ...apiHeaders, "idempotency-key": "refused-1" },
            body: JSON.stringify(linkBody),
          }),
          "create",
        );
        await assertCalm503(await fetch(`${server.baseUrl}/pay/${reference}`), "checkout page");
        await assertCalm503(
          await fetch(`${server.baseUrl}/pay/${reference}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams(cardFields()).toString(),
          }),
          "checkout post",
        );
        await assertCalm503(
          await fetch(`${server.baseUrl}/portal/overview`, { headers: { cookie: portal.cookieHeader() } }),
          "portal overview",
        );
      }
      const icelandic = await fetch(`${server.baseUrl}/portal/links`, {
        headers: { cookie: portal.cookieHeader(), "accept-language": "is" },
      });
      const html = await icelandic.clone().text();
      await assertCalm503(icelandic, "portal in Icelandic");
      assert.match(html, /Reyndu aftur/);
    } finally {
      await accept();
    }
    const retried = await server.api("POST", "/api/v1/paymentlinks/create", linkBody, { "idempotency-key": "refused-1" });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal((await portal.get("/portal/overview")).status, 200, "the session survived");
  });

  test("a key whose request failed mid-way in the outage is free again as soon as the database is back", async () => {
    const linkBody = payByLink(server);
    // Hold creates back after the key is claimed, then take the database away under the waiting request.
    const locker = new pg.Client({ connectionString: server.database.url });
    locker.on("error", () => {});
    await locker.connect();
    const lockerPid = (await locker.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE payment_links IN EXCLUSIVE MODE");
    const pending = server.api("POST", "/api/v1/paymentlinks/create", linkBody, { "idempotency-key": "mid-way-1" });
    await waitUntil(async () => {
      const { rows } = await asAdmin("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", [
        databaseName,
      ]);
      return rows[0].n > 0;
    });
    await refuse(lockerPid);
    await locker.query("ROLLBACK").catch(() => {});
    await locker.end().catch(() => {});
    await asAdmin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [databaseName]);
    const failed = await pending;
    assert.equal(failed.status, 503, JSON.stringify(failed.body));
    assert.equal(failed.body.errorCode, "5003");
    const claimed = await asAdmin("SELECT 1"); // the admin database still answers; the test one does not
    assert.equal(claimed.rowCount, 1);
    await accept();
    const started = Date.now();
    let retried = await server.api("POST", "/api/v1/paymentlinks/create", linkBody, { "idempotency-key": "mid-way-1" });
    while (retried.status === 409 && Date.now() - started < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      retried = await server.api("POST", "/api/v1/paymentlinks/create", linkBody, { "idempotency-key": "mid-way-1" });
    }
    assert.equal(retried.status, 200, `retry after the outage: ${retried.status} ${JSON.stringify(retried.body)}`);
  });
});

describe("an error raised while an error is being answered", () => {
  for (const backend of testBackends().slice(0, 1)) {
    test("still answers in the envelope (503 5003 with Retry-After for an outage), never Fastify's body", async () => {
      const server = await startTestServer({ backend });
      try {
        // Not a real route: a scope like /api/v1's whose answers fail to send, as an onSend hook
        // that needs a database that has just gone away would make them.
        await server.app.close();
        const app = await buildApp({ db: server.db, publicBaseUrl: "http://127.0.0.1", keyring: testKeyring() });
        await app.register(
          async (scope) => {
            scope.setErrorHandler(jsonErrorHandler);
            scope.addHook("onSend", async (_request, reply, payload) => {
              if (reply.statusCode >= 400) throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });
              return payload;
            });
            scope.get("/broken", async () => {
              throw new Error("a bug with internal details");
            });
            scope.get("/away", async () => {
              throw Object.assign(new Error('database "x" is not currently accepting connections'), { code: "55000" });
            });
          },
          { prefix: "/test" },
        );
        const broken = await app.inject({ method: "GET", url: "/test/broken" });
        assert.doesNotMatch(broken.body, INTERNAL);
        assert.ok(broken.statusCode === 500 || broken.statusCode === 503, String(broken.statusCode));
        assertEnvelope(JSON.parse(broken.body));
        const away = await app.inject({ method: "GET", url: "/test/away" });
        assert.equal(away.statusCode, 503, away.body);
        assert.equal(JSON.parse(away.body).errorCode, "5003");
        assert.ok(away.headers["retry-after"]);
        assert.doesNotMatch(away.body, INTERNAL);
        await app.close();
      } finally {
        await server.database.destroy();
      }
    });
  }
});
