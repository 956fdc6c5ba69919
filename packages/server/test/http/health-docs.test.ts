// Health, readiness, the OpenAPI document and the reference page (Swagger UI), unknown routes, and what a client
// sees when the server itself fails (500 5000, no internals) — on every backend.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DOCS_CSP } from "../../src/api/docs.ts";
import { ERRORS } from "../../src/domain/errors.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, payByLink, rawRequest } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { enqueue, sampleMessage } from "../webhooks/support.ts";

const OPERATIONS: Array<[string, string, string]> = [
  ["post", "/api/v1/paymentlinks/create", "createPaymentLink"],
  ["get", "/api/v1/paymentlinks/{reference}", "getPaymentLink"],
  ["post", "/api/v1/paymentlinks/update", "updatePaymentLink"],
  ["post", "/api/v1/paymentlinks/disable", "disablePaymentLink"],
  ["get", "/api/v1/paymentlinks", "listPaymentLinks"],
  ["post", "/api/v1/hostedcheckout", "createHostedCheckoutSession"],
  ["get", "/api/v1/hostedcheckout/status/{checkoutReference}", "getHostedCheckoutStatus"],
];

for (const backend of testBackends()) {
  describe(`health, docs and unknown routes (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    it("URLs the router refuses (over-long parameter, broken percent-encoding) get 404 in Paylink's own formats", async () => {
      for (const path of [
        `/api/v1/paymentlinks/${"x".repeat(300)}`,
        "/api/v1/paymentlinks/%E0%A4%A",
        `/admin/v1/merchants/${"m".repeat(300)}/webhooks`,
      ]) {
        const response = await fetch(`${server.baseUrl}${path}`, { headers: { "x-api-key": server.apiKey } });
        assert.equal(response.status, 404, path);
        const body = (await response.json()) as Record<string, string>;
        assert.equal(body.errorCode, "2014", path);
        assert.ok(body.responseIdentifier && body.responseDateTime, path);
      }
      for (const path of [`/pay/${"x".repeat(300)}`, "/pay/%E0%A4%A"]) {
        const response = await fetch(`${server.baseUrl}${path}`, { headers: { "accept-language": "en" } });
        assert.equal(response.status, 404, path);
        assert.match(response.headers.get("content-type") ?? "", /text\/html/);
        assert.match(await response.text(), /Payment link not found/);
      }
    });

    it("GET /healthz answers 200", async () => {
      const response = await fetch(`${server.baseUrl}/healthz`);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { status: "ok" });
    });

    it("GET /readyz answers 200 while the database is reachable", async () => {
      const response = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(response.status, 200);
      assert.equal((await response.json()).status, "ready");
    });

    it("GET /metrics answers Prometheus text", async () => {
      const response = await fetch(`${server.baseUrl}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
      assert.match(await response.text(), /^# HELP paylink_http_requests_total/m);
    });

    it("GET /metrics reports the webhook queue from the database: pending, failed, and how overdue", async () => {
      const gauge = async (name: string) => {
        const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
        const value = new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1];
        assert.ok(value !== undefined, `${name} in ${text}`);
        return Number(value);
      };
      const before = {
        pending: await gauge("paylink_webhook_deliveries_pending"),
        failed: await gauge("paylink_webhook_deliveries_failed"),
      };
      const merchant = await server.addMerchant();
      await server.db
        .insertInto("webhook_endpoints")
        .values({
          id: `whk_metrics_${merchant.merchantId}`,
          merchant_id: merchant.merchantId,
          url: "https://hooks.example/x",
          api_key: "k",
          hmac_key: "00".repeat(32),
        })
        .execute();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(...(await enqueue(server.db, merchant.merchantId, sampleMessage())));
      // No worker runs in this server: the three wait. One is ten minutes overdue, one has failed.
      await server.db
        .updateTable("webhook_deliveries")
        .set({ next_attempt_at: new Date(Date.now() - 600_000) })
        .where("id", "=", ids[0]!)
        .execute();
      await server.db.updateTable("webhook_deliveries").set({ state: "failed" }).where("id", "=", ids[1]!).execute();
      assert.equal(await gauge("paylink_webhook_deliveries_pending"), before.pending + 2);
      assert.equal(await gauge("paylink_webhook_deliveries_failed"), before.failed + 1);
      const overdue = await gauge("paylink_webhook_oldest_due_seconds");
      assert.ok(overdue >= 599 && overdue < 900, `overdue ${overdue}`);
    });

    describe("GET /api/v1/openapi.json", () => {
      let doc: any;
      /** Every merchant-API operation in the document, the five known ones and any added later. */
      const apiOperations = () =>
        Object.entries<Record<string, unknown>>(doc.paths)
          .filter(([path]) => path.startsWith("/api/v1/"))
          .flatMap(([path, operations]) => Object.keys(operations).map((method) => [method, path] as const));
      before(async () => {
        const response = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
        assert.equal(response.status, 200);
        assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
        doc = await response.json();
      });

      it("is OpenAPI 3.1", () => {
        assert.match(doc.openapi, /^3\.1\.\d+$/);
        assert.equal(typeof doc.info.title, "string");
        assert.equal(typeof doc.info.version, "string");
      });

      for (const [method, path, operationId] of OPERATIONS) {
        it(`describes ${method.toUpperCase()} ${path} (${operationId})`, () => {
          const operation = doc.paths?.[path]?.[method];
          assert.ok(operation, `${method} ${path} is in the document`);
          assert.equal(operation.operationId, operationId);
          assert.ok(operation.responses?.["200"], "documents its success");
          assert.ok(operation.responses?.["400"], "documents its errors");
        });
      }

      it("documents the X-API-key scheme and the create body", () => {
        const schemes = Object.values(doc.components?.securitySchemes ?? {}) as any[];
        assert.ok(schemes.some((s) => s.type === "apiKey" && s.in === "header" && s.name.toLowerCase() === "x-api-key"));
        const body = doc.paths["/api/v1/paymentlinks/create"].post.requestBody.content["application/json"].schema;
        for (const field of ["type", "terminalIdentifier", "amount", "currency"])
          assert.ok(body.required.includes(field), `${field} is required`);
        for (const field of [
          "items",
          "culture",
          "themeKey",
          "expiresAt",
          "description",
          "returnUrl",
          "exactSalesCount",
          "shopperInfo",
          "recurringProcessingModel",
        ]) {
          assert.ok(field in body.properties, `${field} is documented`);
        }
        const error = doc.paths["/api/v1/paymentlinks/create"].post.responses["400"].content["application/json"].schema;
        assert.deepEqual(Object.keys(error.properties).sort(), ["errorCode", "errorMessage", "responseDateTime", "responseIdentifier"]);
      });

      it("does not ask for an API key to be read", async () => {
        const response = await fetch(`${server.baseUrl}/api/v1/openapi.json`, { headers: { "x-api-key": "wrong" } });
        assert.equal(response.status, 200);
      });

      it("prints the whole error catalogue, generated from ERRORS, and says what Paylink is compatible with", () => {
        const guide: string = doc.info.description;
        for (const [name, error] of Object.entries(ERRORS)) {
          const row = `| \`${error.code}\` | ${error.status} | ${name} | ${error.when} |`;
          assert.ok(guide.includes(row), `the catalogue has the row ${row}`);
        }
        assert.match(guide, /Straumur's payment-links API/);
        for (const topic of ["X-API-key", "Idempotency-Key", "Idempotent-Replayed", "responseIdentifier", "responseDateTime", "errorCode"])
          assert.ok(guide.includes(topic), `the guide explains ${topic}`);
        assert.doesNotMatch(JSON.stringify(doc), /\bseed\b/i);
      });

      it("gives every /api/v1 operation one error response per status, its errorCode listing that status's codes", () => {
        const statuses = [...new Set(Object.values(ERRORS).map((error) => error.status))];
        for (const [method, path] of apiOperations()) {
          const responses = doc.paths[path][method].responses;
          const listed: string[] = [];
          for (const status of statuses) {
            const codes = Object.values(ERRORS)
              .filter((error) => error.status === status)
              .map((error) => error.code);
            const schema = responses[String(status)]?.content?.["application/json"]?.schema;
            assert.deepEqual(schema?.properties?.errorCode?.enum, codes, `${method} ${path} ${status}`);
            for (const code of codes) assert.ok(responses[String(status)].description.includes(`\`${code}\``), `${code} described`);
            listed.push(...codes);
          }
          assert.deepEqual(
            listed.sort(),
            Object.values(ERRORS)
              .map((error) => error.code)
              .sort(),
            `${method} ${path}: every code`,
          );
        }
      });

      it("has worked examples: create with items, create a TokenizeByLink, its answer and its errors; every operation has some", () => {
        assert.ok(apiOperations().length >= OPERATIONS.length);
        const create = doc.paths["/api/v1/paymentlinks/create"].post;
        const requests = create.requestBody.content["application/json"].examples;
        assert.equal(requests.payByLink.value.type, "PayByLink");
        assert.ok(requests.payByLink.value.items.length > 0, "the PayByLink example has items");
        assert.equal(requests.tokenizeByLink.value.type, "TokenizeByLink");
        const created = create.responses["200"].content["application/json"].examples.created.value;
        assert.match(
          created.url,
          new RegExp(`^${server.baseUrl}/pay/${created.paymentLinkReference}$`),
          "link URLs use the public base URL",
        );
        assert.equal(create.responses["400"].content["application/json"].examples.iskNotWhole.value.errorCode, "2026");
        assert.equal(create.responses["422"].content["application/json"].examples.keyReused.value.errorCode, "3004");
        assert.ok(
          create.parameters.some((p: any) => p.in === "header" && p.name === "Idempotency-Key"),
          "Idempotency-Key documented",
        );
        assert.ok(create.responses["200"].headers["Idempotent-Replayed"], "the replay header documented");
        for (const [method, path] of apiOperations()) {
          const operation = doc.paths[path][method];
          const examples = (status: string) => Object.keys(operation.responses[status]?.content?.["application/json"]?.examples ?? {});
          assert.ok(examples("200").length > 0, `${method} ${path}: a success example`);
          assert.notEqual(operation.responses["200"].description, "Default Response", `${method} ${path}: the success described`);
          assert.ok(examples("401").length > 0, `${method} ${path}: an example of a wrong key`);
          const errors = Object.keys(operation.responses).filter((status) => Number(status) >= 400 && status !== "401");
          assert.ok(
            errors.some((status) => examples(status).length > 0),
            `${method} ${path}: an example of its own error`,
          );
          if (operation.requestBody) assert.ok(Object.keys(operation.requestBody.content["application/json"].examples ?? {}).length > 0);
        }
      });

      it("tells the admin API's bearer token from the merchant API key", () => {
        assert.deepEqual(doc.components.securitySchemes.adminToken, {
          type: "http",
          scheme: "bearer",
          description: "The operator's admin token.",
        });
        const admin = Object.entries(doc.paths).filter(([path]) => path.startsWith("/admin/"));
        assert.ok(admin.length > 0, "this server has the admin API");
        for (const [path, operations] of admin)
          for (const operation of Object.values(operations as Record<string, any>))
            assert.deepEqual(operation.security, [{ adminToken: [] }], path);
      });
    });

    it("GET /docs is Swagger UI under a strict CSP, every file it references served by this server", async () => {
      const response = await fetch(`${server.baseUrl}/docs`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
      const csp = response.headers.get("content-security-policy") ?? "";
      assert.equal(csp, DOCS_CSP);
      assert.match(csp, /default-src 'none'/);
      assert.doesNotMatch(csp, /unsafe-|https?:|\*/, "no inline code, no eval, no other origin");
      const html = await response.text();
      assert.match(html, /<title>Paylink API reference<\/title>/);
      assert.match(html, /<div id="swagger-ui"><\/div>/);
      for (const script of html.match(/<script[^>]*>[^<]*<\/script>/g) ?? []) {
        assert.match(script, /^<script src="[^"]+"[^>]*>\s*<\/script>$/, `an external file, no inline code: ${script}`);
      }
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1]!, `${server.baseUrl}/docs`));
      assert.ok(assets.length >= 5, `the page references its scripts and styles: ${assets.join(", ")}`);
      const types: Record<string, RegExp> = { js: /javascript/, css: /^text\/css/, png: /^image\/png/ };
      for (const asset of assets) {
        assert.equal(asset.origin, new URL(server.baseUrl).origin, `${asset} is on this server`);
        const file = await fetch(asset);
        assert.equal(file.status, 200, `${asset}`);
        const extension = asset.pathname.split(".").pop()!;
        assert.match(file.headers.get("content-type") ?? "", types[extension] ?? /./, `${asset}`);
        assert.ok((await file.arrayBuffer()).byteLength > 0, `${asset} is not empty`);
      }
      assert.ok(assets.some((asset) => asset.pathname.endsWith("/swagger-ui-bundle.js")));
      // The page loads the document from /docs/json: the same document as /api/v1/openapi.json.
      const initializer = await (await fetch(`${server.baseUrl}/docs/static/swagger-initializer.js`)).text();
      assert.match(initializer, /resolveUrl\('\.\/json'\)/);
      const [shown, published] = await Promise.all(
        [`${server.baseUrl}/docs/json`, `${server.baseUrl}/api/v1/openapi.json`].map(async (url) => (await fetch(url)).json()),
      );
      assert.deepEqual(shown, published);
    });

    describe("unknown routes under /api/v1 answer 404 with a JSON error", () => {
      const cases: Array<[string, string, boolean]> = [
        ["GET", "/api/v1/nothing", true],
        ["GET", "/api/v1/nothing", false],
        ["POST", "/api/v1/paymentlinks/delete", true],
        ["DELETE", "/api/v1/paymentlinks/abc", true],
        ["PUT", "/api/v1/paymentlinks/update", true],
        ["GET", "/api/v2/paymentlinks", true],
      ];
      for (const [method, path, withKey] of cases) {
        it(`${method} ${path}${withKey ? "" : " (no key)"}`, async () => {
          const response = await rawRequest(
            { baseUrl: server.baseUrl, apiKey: withKey ? server.apiKey : "" },
            method,
            path,
            method === "GET" || method === "DELETE" ? {} : { body: "{}", contentType: "application/json" },
          );
          assertError(response, 404, "2014");
        });
      }
    });
  });

  describe(`a failing database gives 500 5000 without internals (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
      // Pull the database away under the running server.
      await server.database.destroy();
    });
    after(() => server?.app.close());

    it("GET /readyz answers 503", async () => {
      const response = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(response.status, 503);
      const text = await response.text();
      assert.doesNotMatch(text, /postgres|pglite|ECONN|stack|at \//i);
    });

    it("the API answers 500 with code 5000, the envelope and a message without internals", async () => {
      for (const response of [
        await server.api("POST", "/api/v1/paymentlinks/create", payByLink(server)),
        await server.api("GET", "/api/v1/paymentlinks"),
      ]) {
        assertError(response, 500, "5000");
        assert.ok(
          response.body.errorMessage.includes(response.body.responseIdentifier),
          "the message quotes the response identifier for support",
        );
        assert.doesNotMatch(response.body.errorMessage, /pool|pglite|sql|select|insert|ECONN|Error:|\bat \//i);
      }
    });

    it("GET /healthz still answers 200: the process is up", async () => {
      assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
    });
  });
}
