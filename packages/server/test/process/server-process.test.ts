// Issue #2 acceptance 1, 4 and 5 with real `paylink serve` processes: the quick start as a new
// user sees it, durability across a clean restart and a kill -9, two processes on one
// PostgreSQL, and the refusal of a second process on one embedded data directory.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createPostgresDatabase } from "../support/databases.ts";
import { PortalClient } from "../support/portal.ts";
import { callApi, parseDemoCredentials, type ServerProcess, startServerProcess } from "../support/process.ts";

const running: ServerProcess[] = [];
after(async () => {
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

async function start(env: Record<string, string>, options?: { waitReady?: boolean }) {
  const process = await startServerProcess(env, options);
  running.push(process);
  return process;
}

function payByLink(terminalIdentifier: string, amount = 250000) {
  return {
    type: "PayByLink",
    terminalIdentifier,
    amount,
    currency: "ISK",
    items: [{ name: "Ullarsokkar", quantity: 2, unitPrice: amount / 2, amountWithoutDiscount: amount, amount }],
    description: "order 1001",
  };
}

describe("embedded database, real processes", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "paylink-process-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  let demoCredentials: ReturnType<typeof parseDemoCredentials> | undefined;

  test("first start prints demo credentials; the printed key creates, reads, updates, lists and disables a link", async () => {
    const server = await start({ PAYLINK_DATA_DIR: dataDir });
    const demo = parseDemoCredentials(server.output());
    demoCredentials = demo;
    assert.match(server.output(), /curl -s http:\/\/127\.0\.0\.1:\d+\/api\/v1\/paymentlinks\/create/);

    // The printed curl body, as printed.
    const printedBody = /-d '(\{.*\})'/.exec(server.output())?.[1];
    assert.ok(printedBody, "the printed curl command carries a JSON body");
    const created = await callApi(server.baseUrl, demo.apiKey, "POST", "/api/v1/paymentlinks/create", JSON.parse(printedBody));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const reference = created.body.paymentLinkReference;
    assert.equal(created.body.url, `${server.baseUrl}/pay/${reference}`);

    const read = await callApi(server.baseUrl, demo.apiKey, "GET", `/api/v1/paymentlinks/${reference}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.paymentLink.status, "Active");

    const updated = await callApi(server.baseUrl, demo.apiKey, "POST", "/api/v1/paymentlinks/update", {
      ...read.body.paymentLink,
      description: "renamed",
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));

    const list = await callApi(server.baseUrl, demo.apiKey, "GET", "/api/v1/paymentlinks?search=renamed");
    assert.equal(list.body.totalCount, 1);
    assert.equal(list.body.data[0].paymentLinkReference, reference);

    const disabled = await callApi(server.baseUrl, demo.apiKey, "POST", "/api/v1/paymentlinks/disable", {
      paymentLinkReference: reference,
    });
    assert.equal(disabled.status, 200);
    const after = await callApi(server.baseUrl, demo.apiKey, "GET", `/api/v1/paymentlinks/${reference}`);
    assert.equal(after.body.paymentLink.status, "Disabled");
    assert.equal(after.body.paymentLink.description, "renamed");

    // The printed portal login works: sign in and see the overview.
    const portal = new PortalClient(server.baseUrl);
    const signedIn = await portal.signIn(demo.portalEmail, demo.portalPassword);
    assert.equal(signedIn.status, 303, signedIn.text);
    const overview = await portal.get("/portal/overview");
    assert.equal(overview.status, 200);
    assert.match(overview.text, /Demo merchant/);

    assert.equal(await server.stop("SIGTERM"), 0, `clean exit on SIGTERM:\n${server.output()}`);
  });

  test("a second process on the same data directory refuses with a clear message", async () => {
    const first = await start({ PAYLINK_DATA_DIR: dataDir });
    const second = await start({ PAYLINK_DATA_DIR: dataDir }, { waitReady: false });
    const code = await second.exited;
    assert.notEqual(code, 0);
    assert.match(second.output(), /already in use by another Paylink process \(PID \d+\)/);
    // The first one is unharmed.
    assert.equal((await fetch(`${first.baseUrl}/readyz`)).status, 200);
    assert.equal(await first.stop("SIGTERM"), 0);
  });

  test("data survives a clean restart and a kill -9 right after a successful create", async () => {
    const first = await start({ PAYLINK_DATA_DIR: dataDir });
    assert.doesNotMatch(first.output(), /demo merchant created/, "the demo is created only once");
    // The key printed by the first start (test 1) still works: keys live in the database.
    const demoKey = demoCredentials!;
    const created = await callApi(
      first.baseUrl,
      demoKey.apiKey,
      "POST",
      "/api/v1/paymentlinks/create",
      payByLink(demoKey.terminalIdentifier),
    );
    assert.equal(created.status, 200);
    assert.equal(await first.stop("SIGKILL"), "SIGKILL");

    const second = await start({ PAYLINK_DATA_DIR: dataDir });
    const read = await callApi(second.baseUrl, demoKey.apiKey, "GET", `/api/v1/paymentlinks/${created.body.paymentLinkReference}`);
    assert.equal(read.status, 200, "the link created just before kill -9 is there");
    assert.equal(read.body.paymentLink.amount, 250000);
    const all = await callApi(second.baseUrl, demoKey.apiKey, "GET", "/api/v1/paymentlinks");
    assert.equal(all.body.totalCount, 2, "the link of the first test survived the clean restart too");
    assert.equal(await second.stop("SIGTERM"), 0);
  });
});

describe("PostgreSQL, two processes", { skip: process.env.TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set" }, () => {
  test("two instances started together migrate once and serve the same links", async () => {
    const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    try {
      const adminToken = "process-test-admin-token-0123";
      const env = { DATABASE_URL: database.url, PAYLINK_ADMIN_TOKEN: adminToken };
      const [a, b] = await Promise.all([start(env), start(env)]);

      const admin = async (path: string, body: unknown) => {
        const response = await fetch(`${a.baseUrl}/admin/v1${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 200);
        return (await response.json()) as any;
      };
      const { merchantId } = await admin("/merchants", { name: "Two-instance shop" });
      const { terminalIdentifier } = await admin(`/merchants/${merchantId}/terminals`, {});
      const { apiKey } = await admin(`/merchants/${merchantId}/apikeys`, {});

      const created = await callApi(a.baseUrl, apiKey, "POST", "/api/v1/paymentlinks/create", payByLink(terminalIdentifier));
      assert.equal(created.status, 200);
      const reference = created.body.paymentLinkReference;

      const readOnB = await callApi(b.baseUrl, apiKey, "GET", `/api/v1/paymentlinks/${reference}`);
      assert.equal(readOnB.status, 200);
      const updateOnB = await callApi(b.baseUrl, apiKey, "POST", "/api/v1/paymentlinks/update", {
        ...readOnB.body.paymentLink,
        description: "changed on B",
      });
      assert.equal(updateOnB.status, 200);
      const readOnA = await callApi(a.baseUrl, apiKey, "GET", `/api/v1/paymentlinks/${reference}`);
      assert.equal(readOnA.body.paymentLink.description, "changed on B");

      assert.equal(await a.stop(), 0);
      assert.equal(await b.stop(), 0);
    } finally {
      await database.drop();
    }
  });
});
