// "Bad input always gets a clear 4xx error in the documented format, never a 500 and never lost
// data", proved with generated input to /admin/v1 on every backend: at least 300 generated
// requests to each POST endpoint (merchants, terminals, apikeys, users, themes, webhooks, webhook
// update, and rotate / enable / disable / resend with ids that exist nowhere) and to the delivery
// log's query string. Every answer is a 4xx in the error envelope — or a 200 where the case is
// marked as possibly valid — and afterwards each table holds its old rows plus exactly one per 200.
//
// The cases come from test/support/fuzz-admin.ts and fuzz-admin-query.ts (seeded: FUZZ_SEED
// explores others, FUZZ_CASES sends more per endpoint). Each body case starts valid, may get
// "noise" changes that are valid or not, and ends with one change that is certainly invalid; a
// fraction are raw bytes below the JSON level. Requests go through node:http, so the bytes on the
// wire are exactly the generated ones.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { rowCount, simplePayByLink } from "../support/fixtures.ts";
import { Random, report } from "../support/fuzz.ts";
import {
  ACTION_ENDPOINTS,
  BODY_ENDPOINTS,
  type Context,
  generateActionCases,
  generateBodyCases,
  TARGET_WEBHOOK,
} from "../support/fuzz-admin.ts";
import { generateQueryCases } from "../support/fuzz-admin-query.ts";
import { runAdminCases } from "../support/fuzz-admin-run.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { closeRawAgent, sendAdminJson } from "../support/raw-http.ts";
import { createLink } from "../support/shopper.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const CASES = Math.max(300, Number(process.env.FUZZ_CASES ?? 300));
/** Edge-value cases sent on top of the malformed ones, per endpoint. */
const EDGE_CASES = Math.round(CASES / 5);

for (const backend of testBackends()) {
  describe(`generated malformed admin input never gets a 5xx (${backend.name})`, () => {
    let server: TestServer;
    const ctx: Context = { merchantId: "", webhookId: "", scratchWebhookId: "" };
    let webhookBefore: unknown;
    let reference: string;

    before(async () => {
      server = await startTestServer({ backend });
      ctx.merchantId = server.merchantId;
      const created = await sendAdminJson(server, "POST", `/admin/v1/merchants/${server.merchantId}/webhooks`, TARGET_WEBHOOK);
      assert.equal(created.status, 200, created.text);
      ctx.webhookId = (created.body as any).webhookId;
      const scratch = await sendAdminJson(server, "POST", `/admin/v1/merchants/${server.merchantId}/webhooks`, {
        url: "https://shop.example/hooks/scratch",
      });
      assert.equal(scratch.status, 200, scratch.text);
      ctx.scratchWebhookId = (scratch.body as any).webhookId;
      webhookBefore = (await sendAdminJson(server, "GET", `/admin/v1/merchants/${server.merchantId}/webhooks`)).body;
      reference = await createLink(server, simplePayByLink(server));
    });
    after(async () => {
      closeRawAgent();
      await server?.close();
    });

    BODY_ENDPOINTS.forEach((endpoint, n) => {
      it(`${endpoint.title}: ${CASES} malformed requests all 4xx, plus ${EDGE_CASES} edge values 4xx or 200`, async (t) => {
        const before = endpoint.table ? await rowCount(server, endpoint.table) : 0;
        const cases = generateBodyCases(new Random(SEED + n), endpoint, ctx, server.adminToken, CASES, EDGE_CASES);
        const outcome = await runAdminCases(server, cases);
        report(outcome, SEED, CASES, t);
        if (endpoint.table)
          assert.equal(
            await rowCount(server, endpoint.table),
            before + outcome.successes,
            `${endpoint.table}: one new row per 200, no other change`,
          );
      });
    });

    ACTION_ENDPOINTS.forEach((endpoint, n) => {
      it(`${endpoint.title}: ${CASES} generated requests, all 4xx`, async (t) => {
        const cases = generateActionCases(new Random(SEED + 100 + n), endpoint, ctx, server.adminToken, CASES);
        report(await runAdminCases(server, cases), SEED, CASES, t);
      });
    });

    it(`GET /admin/v1/merchants/{id}/deliveries: ${CASES} generated query strings, all 4xx`, async (t) => {
      const cases = generateQueryCases(new Random(SEED + 200), ctx, server.adminToken, CASES);
      report(await runAdminCases(server, cases), SEED, CASES, t);
    });

    it("the admin data is intact: the fuzzed webhook endpoint is unchanged, the fixture merchant still works", async () => {
      const webhooks = await sendAdminJson(server, "GET", `/admin/v1/merchants/${server.merchantId}/webhooks`);
      assert.equal(webhooks.status, 200);
      // updatedAt moves when a generated update happens to be valid: it then sends the target's own values.
      const { updatedAt: _after, ...target } = (webhooks.body as any).data.find((e: any) => e.webhookId === ctx.webhookId);
      const { updatedAt: _before, ...targetBefore } = (webhookBefore as any).data.find((e: any) => e.webhookId === ctx.webhookId);
      assert.deepEqual(target, targetBefore, "url, keys, enabled state of the target are as before");
      const deliveries = await sendAdminJson(
        server,
        "GET",
        `/admin/v1/merchants/${server.merchantId}/deliveries?page=0&pageSize=5&state=Pending`,
      );
      assert.equal(deliveries.status, 200, deliveries.text);
      assert.equal(await rowCount(server, "webhook_deliveries"), 0, "no delivery was queued");
      const link = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
      assert.equal(link.status, 200, "the fixture API key still works");
    });
  });
}
