// /admin/v1 webhook endpoints and delivery log (docs/admin-api.md#webhook-endpoints) on a real server and both backends.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { waitUntil } from "../support/wait.ts";
import { enqueue, type Receiver, sampleMessage, startReceiver, testKeyring } from "./support.ts";

const keyring = testKeyring();

for (const backend of testBackends()) {
  describe(`webhook admin API (${backend.name})`, () => {
    let server: TestServer;
    let admin: (method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; body: any }>;
    before(async () => {
      server = await startTestServer({ backend });
      admin = async (method, path, body, token = server.adminToken) => {
        const response = await fetch(`${server.baseUrl}/admin/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      };
    });
    after(async () => {
      await server.close();
    });

    test("create returns the url, a generated apiKey and a 64-hex hmacKey; list shows them masked", async () => {
      const created = await admin("POST", `/merchants/${server.merchantId}/webhooks`, { url: "https://shop.example/hooks/paylink" });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.match(created.body.webhookId, /^whk_[0-9A-Za-z]{16}$/);
      assert.equal(created.body.url, "https://shop.example/hooks/paylink");
      assert.match(created.body.apiKey, /^whs_[0-9A-Za-z]{32}$/);
      assert.match(created.body.hmacKey, /^[0-9a-f]{64}$/);
      assert.equal(created.body.enabled, true);

      const own = await admin("POST", `/merchants/${server.merchantId}/webhooks`, {
        url: "https://erp.example/in",
        apiKey: "Basic dXNlcjpwYXNz",
      });
      assert.equal(own.status, 200);
      assert.equal(own.body.apiKey, "Basic dXNlcjpwYXNz");

      const list = await admin("GET", `/merchants/${server.merchantId}/webhooks`);
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 2);
      const [first, second] = list.body.data;
      assert.equal(first.webhookId, created.body.webhookId);
      assert.equal(first.maskedApiKey, `************${created.body.apiKey.slice(-4)}`);
      assert.equal(first.maskedHmacKey, `************${created.body.hmacKey.slice(-4)}`);
      assert.equal(second.maskedApiKey, `************YXNz`);
      const text = JSON.stringify(list.body);
      assert.ok(!text.includes(created.body.hmacKey) && !text.includes(created.body.apiKey), "no secret in clear in the list");
    });

    test("bad input: URLs that are not https or point inward, bad apiKeys, unknown fields and merchants", async () => {
      const path = `/merchants/${server.merchantId}/webhooks`;
      for (const url of [
        "http://shop.example/hook",
        "https://127.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://localhost:8080/",
        "javascript:alert(1)",
        "shop.example",
      ]) {
        const response = await admin("POST", path, { url });
        assert.equal(response.status, 400, url);
        assert.equal(response.body.errorCode, "2008", url);
      }
      // IPv6 literals that reach a private IPv4 address: NAT64, IPv4-mapped (URL parsing turns
      // [::ffff:169.254.169.254] into the hex form [::ffff:a9fe:a9fe]), IPv4-compatible, 6to4.
      for (const url of [
        "https://[64:ff9b::a9fe:a9fe]/latest/meta-data",
        "https://[64:ff9b::169.254.169.254]/",
        "https://[64:ff9b::a00:1]/hook",
        "https://[::ffff:169.254.169.254]/",
        "https://[::ffff:a9fe:a9fe]/",
        "https://[::127.0.0.1]/",
        "https://[2002:a9fe:a9fe::1]/",
        "https://[2002:a00:1::1]/",
      ]) {
        const response = await admin("POST", path, { url });
        assert.equal(response.status, 400, url);
        assert.equal(response.body.errorCode, "2008", url);
        assert.match(response.body.errorMessage, /private/, url);
      }
      for (const url of ["https://[64:ff9b::8.8.8.8]/hook", "https://[2002:808:808::1]/hook"]) {
        const response = await admin("POST", path, { url });
        assert.equal(response.status, 200, `${url} ${JSON.stringify(response.body)}`);
      }
      assert.equal((await admin("POST", path, { url: "https://shop.example/", apiKey: "two\nlines" })).body.errorCode, "2008");
      assert.equal((await admin("POST", path, { url: "https://shop.example/", apiKey: "" })).body.errorCode, "000");
      assert.equal((await admin("POST", path, { url: "https://shop.example/", hmacKey: "ab" })).body.errorCode, "1006");
      assert.equal((await admin("POST", path, {})).body.errorCode, "000");
      assert.equal((await admin("POST", `/merchants/mer_nobody/webhooks`, { url: "https://shop.example/" })).status, 404);
      assert.equal((await admin("GET", path, undefined, "wrong-token-0123456789")).status, 401);

      // The operator may allow private targets (development): then http and loopback are accepted.
      const open = await startTestServer({ backend, allowPrivateTargets: true });
      try {
        const response = await fetch(`${open.baseUrl}/admin/v1/merchants/${open.merchantId}/webhooks`, {
          method: "POST",
          headers: { authorization: `Bearer ${open.adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ url: "http://127.0.0.1:9/hook" }),
        });
        assert.equal(response.status, 200);
      } finally {
        await open.close();
      }
    });

    test("rotate returns a new hmacKey; update changes url and apiKey; disable and enable; other merchants' ids are 404", async () => {
      const created = (await admin("POST", `/merchants/${server.merchantId}/webhooks`, { url: "https://shop.example/a" })).body;
      const base = `/merchants/${server.merchantId}/webhooks/${created.webhookId}`;
      const rotated = await admin("POST", `${base}/rotate`);
      assert.equal(rotated.status, 200);
      assert.match(rotated.body.hmacKey, /^[0-9a-f]{64}$/);
      assert.notEqual(rotated.body.hmacKey, created.hmacKey);

      const updated = await admin("POST", base, { url: "https://shop.example/b", apiKey: "Bearer new" });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.url, "https://shop.example/b");
      assert.equal(updated.body.maskedApiKey, "********", "nothing of a short key");
      assert.equal(updated.body.maskedHmacKey, `************${rotated.body.hmacKey.slice(-4)}`);

      const disabled = await admin("POST", `${base}/disable`);
      assert.equal(disabled.status, 200);
      assert.equal(disabled.body.enabled, false);
      assert.equal((await admin("POST", `${base}/disable`)).body.enabled, false, "idempotent");
      assert.equal((await admin("POST", `${base}/enable`)).body.enabled, true);

      const other = await server.addMerchant();
      for (const action of ["rotate", "disable", "enable"]) {
        const response = await admin("POST", `/merchants/${other.merchantId}/webhooks/${created.webhookId}/${action}`);
        assert.equal(response.status, 404, action);
        assert.equal(response.body.errorCode, "2014");
      }
      assert.equal(
        (await admin("POST", `/merchants/${other.merchantId}/webhooks/${created.webhookId}`, { url: "https://evil.example/" })).status,
        404,
      );
      assert.deepEqual((await admin("GET", `/merchants/${other.merchantId}/webhooks`)).body.data, []);
    });

    test("the delivery log lists deliveries newest first with every attempt; resend sends one again", async () => {
      let fail = true;
      const hook: Receiver = await startReceiver(() => (fail ? { status: 500, body: "not today" } : { status: 200, body: "thanks" }));
      const merchant = await server.addMerchant();
      // A loopback receiver: stored directly, as this server (like production) refuses private targets.
      const created = (await createWebhookEndpoint(server.db, keyring, merchant.merchantId, { url: hook.url })).endpoint;
      const worker = new WebhookWorker({
        db: server.db,
        keyring,
        allowPrivate: true,
        idleIntervalMs: 50,
        retry: { delaysMs: [50], jitter: 0 },
      }).start();
      try {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++)
          ids.push(...(await enqueue(server.db, merchant.merchantId, sampleMessage({ amount: String(1000 * (i + 1)) }))));
        await hook.waitFor(6);
        const failed = await waitUntil(async () => {
          const log = await admin("GET", `/merchants/${merchant.merchantId}/deliveries?state=Failed`);
          return log.body.totalCount === 3 && log.body;
        });
        assert.deepEqual(
          failed.data.map((delivery: any) => delivery.deliveryId),
          [...ids].reverse(),
          "newest first",
        );
        const newest = failed.data[0];
        assert.equal(newest.webhookId, created.webhookId);
        assert.equal(newest.url, hook.url);
        assert.equal(newest.eventType, "Authorization");
        assert.equal(newest.state, "Failed");
        assert.equal(newest.message.amount, "3000");
        assert.equal(newest.nextAttemptAt, null);
        assert.equal(newest.lastStatusCode, 500);
        assert.equal(newest.attempts.length, 2);
        for (const attempt of newest.attempts) {
          assert.equal(attempt.statusCode, 500);
          assert.equal(attempt.responseExcerpt, "not today");
          assert.equal(typeof attempt.latencyMs, "number");
          assert.ok(!Number.isNaN(Date.parse(attempt.attemptedAt)));
        }

        const paged = await admin("GET", `/merchants/${merchant.merchantId}/deliveries?page=1&pageSize=2`);
        assert.equal(paged.body.totalCount, 3);
        assert.deepEqual(
          paged.body.data.map((d: any) => d.deliveryId),
          [ids[0]],
        );
        assert.equal((await admin("GET", `/merchants/${merchant.merchantId}/deliveries?webhookId=whk_other`)).body.totalCount, 0);
        assert.equal((await admin("GET", `/merchants/${merchant.merchantId}/deliveries?pageSize=101`)).status, 400);
        assert.equal((await admin("GET", `/merchants/${merchant.merchantId}/deliveries?state=Lost`)).status, 400);

        fail = false;
        const resent = await admin("POST", `/merchants/${merchant.merchantId}/deliveries/${ids[1]}/resend`);
        assert.equal(resent.status, 200, JSON.stringify(resent.body));
        assert.deepEqual(resent.body, { deliveryId: ids[1], state: "Pending" });
        const requests = await hook.waitFor(7);
        assert.equal(requests[6]!.headers["webhook-id"], ids[1]);
        const delivered = await waitUntil(async () => {
          const log = await admin("GET", `/merchants/${merchant.merchantId}/deliveries?state=Delivered`);
          return log.body.totalCount === 1 && log.body.data[0];
        });
        assert.equal(delivered.deliveryId, ids[1]);
        assert.equal(delivered.attempts.length, 3);
        assert.equal(delivered.attempts[2].responseExcerpt, "thanks");
        assert.ok(delivered.deliveredAt);

        assert.equal((await admin("POST", `/merchants/${merchant.merchantId}/deliveries/msg_nope/resend`)).status, 404);
        assert.equal(
          (await admin("POST", `/merchants/${server.merchantId}/deliveries/${ids[0]}/resend`)).status,
          404,
          "another merchant's delivery",
        );
        assert.equal((await admin("GET", `/merchants/${server.merchantId}/deliveries`)).body.totalCount, 0);
      } finally {
        await worker.stop(100);
        await hook.close();
      }
    });

    test("the delivery log refuses a page or pageSize out of range with 400 in the error envelope, as the link list does", async () => {
      const path = `/merchants/${server.merchantId}/deliveries`;
      const cases: Array<[string, string]> = [
        ["?page=99999999999999999999", "2009"], // the offset would overflow bigint: was a 500
        ["?page=9223372036854775807", "2009"],
        ["?page=1000001", "2009"],
        ["?page=1000001&pageSize=1", "2009"],
        ["?pageSize=101", "2009"],
        ["?pageSize=99999999999999999999", "2009"],
        ["?page=-1", "2002"],
        ["?pageSize=0", "2002"],
        ["?page=1.5", "1005"],
      ];
      for (const [query, code] of cases) {
        const response = await admin("GET", `${path}${query}`);
        assert.equal(response.status, 400, `${query} ${JSON.stringify(response.body)}`);
        assert.equal(response.body.errorCode, code, query);
        assert.deepEqual(Object.keys(response.body).sort(), ["errorCode", "errorMessage", "responseDateTime", "responseIdentifier"], query);
        assert.match(response.body.errorMessage, query.includes("pageSize") && !query.includes("page=") ? /pageSize/ : /page/, query);
        // The payment-link list answers the same query the same way.
        const links = await server.api("GET", `/api/v1/paymentlinks${query}`);
        assert.equal(`${links.status} ${links.body.errorCode}`, `400 ${code}`, `links ${query}`);
      }
      const last = await admin("GET", `${path}?page=1000000&pageSize=100`);
      assert.equal(last.status, 200, JSON.stringify(last.body));
      assert.deepEqual(last.body, { data: [], totalCount: 0 });
    });

    test("resending a delivery that is being sent right now is refused (409)", async () => {
      const merchant = await server.addMerchant();
      await createWebhookEndpoint(server.db, keyring, merchant.merchantId, { url: "http://127.0.0.1:9/" });
      const [id] = await enqueue(server.db, merchant.merchantId, sampleMessage());
      // Leased as a worker would while sending.
      await server.db
        .updateTable("webhook_deliveries")
        .set({ lease_until: new Date(Date.now() + 60_000), lease_token: "t" })
        .where("id", "=", id!)
        .execute();
      const response = await admin("POST", `/merchants/${merchant.merchantId}/deliveries/${id}/resend`);
      assert.equal(response.status, 409);
      assert.equal(response.body.errorCode, "3003");
    });
  });
}
