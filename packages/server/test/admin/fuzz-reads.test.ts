// The admin API's reads under generated input, on every backend: the merchants list's paging
// parameters, the per-merchant lists (terminals, apikeys, users, themes) with ids that name no
// merchant — near misses of real ones among them — and the theme edit with broken bodies, other
// merchants' theme keys and wrong admin tokens. Every answer is a 4xx in the error envelope (a 200
// only where a case is marked as possibly valid), no answer holds another merchant's data, and
// afterwards the themes are as they were (edge values go to a scratch theme).
//
// Seeded like fuzz.test.ts: FUZZ_SEED explores others, FUZZ_CASES sends more per route.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { Random, report } from "../support/fuzz.ts";
import { type Context, generateBodyCases } from "../support/fuzz-admin.ts";
import { generateQueryCases } from "../support/fuzz-admin-query.ts";
import {
  generateListCases,
  generateOwnListCases,
  generateWrongTokenThemeCases,
  type ReadsContext,
  themeUpdateEndpoint,
} from "../support/fuzz-admin-reads.ts";
import { runAdminCases } from "../support/fuzz-admin-run.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { closeRawAgent, sendAdminJson } from "../support/raw-http.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const CASES = Math.max(300, Number(process.env.FUZZ_CASES ?? 300));
const EDGE_CASES = Math.round(CASES / 5);

for (const backend of testBackends()) {
  describe(`generated admin reads and theme edits never get a 5xx nor another merchant's data (${backend.name})`, () => {
    let server: TestServer;
    const ctx = {} as ReadsContext;
    /** What of the other merchant no answer may hold (none of it is ever in a request). */
    let othersData: string[];
    let themesBefore: { own: unknown; other: unknown };

    const ok = async (method: string, path: string, body?: unknown) => {
      const response = await sendAdminJson(server, method, `/admin/v1${path}`, body);
      assert.equal(response.status, 200, response.text);
      return response.body as any;
    };
    const themes = async (merchantId: string) => (await ok("GET", `/merchants/${merchantId}/themes`)).data;

    before(async () => {
      server = await startTestServer({ backend });
      ctx.merchantId = server.merchantId;
      ctx.themeName = "Fuzz target theme";
      ctx.themeColour = "#0f766e";
      ctx.themeKey = (
        await ok("POST", `/merchants/${ctx.merchantId}/themes`, { name: ctx.themeName, primaryColor: ctx.themeColour })
      ).themeKey;
      ctx.scratchThemeKey = (await ok("POST", `/merchants/${ctx.merchantId}/themes`, { name: "Scratch" })).themeKey;
      ctx.otherMerchantId = (await ok("POST", "/merchants", { name: "The other merchant" })).merchantId;
      const other = `/merchants/${ctx.otherMerchantId}`;
      ctx.otherThemeKey = (await ok("POST", `${other}/themes`, { name: "Other's secret theme", primaryColor: "#a1b2c3" })).themeKey;
      const terminal = (await ok("POST", `${other}/terminals`, { name: "Other's till", currencies: ["EUR"] })).terminalIdentifier;
      const key = (await ok("POST", `${other}/apikeys`, { name: "Other's key" })).keyId;
      await ok("POST", `${other}/users`, { email: "other.owner@example.is", password: "correct horse battery staple" });
      othersData = [terminal, key, "Other's till", "Other's key", "other.owner@example.is", "Other's secret theme", "#a1b2c3"];
      themesBefore = { own: await themes(ctx.merchantId), other: await themes(ctx.otherMerchantId) };
    });
    after(async () => {
      closeRawAgent();
      await server?.close();
    });

    it(`GET /admin/v1/merchants: ${CASES} generated paging query strings, all 4xx`, async (t) => {
      const deliveriesContext: Context = { merchantId: ctx.merchantId, webhookId: "whk_none", scratchWebhookId: "whk_none" };
      const cases = generateQueryCases(new Random(SEED), deliveriesContext, server.adminToken, CASES, () => "/admin/v1/merchants");
      report(await runAdminCases(server, cases), SEED, CASES, t);
    });

    it(`GET /admin/v1/merchants/{id}/terminals|apikeys|users|themes: ${CASES} ids that name no merchant, all 4xx with nothing of the other merchant`, async (t) => {
      const cases = generateListCases(new Random(SEED + 1), ctx, server.adminToken, CASES);
      report(await runAdminCases(server, cases, othersData), SEED, CASES, t);
    });

    it(`the merchant's own lists with ${EDGE_CASES} ignored queries: 200, and never the other merchant's ids or data`, async (t) => {
      const cases = generateOwnListCases(new Random(SEED + 2), ctx, server.adminToken, EDGE_CASES);
      const outcome = await runAdminCases(server, cases, [...othersData, ctx.otherMerchantId, ctx.otherThemeKey]);
      report(outcome, SEED, 0, t);
      assert.equal(outcome.successes, EDGE_CASES, "every one answered 200");
    });

    it(`POST /admin/v1/merchants/{id}/themes/{themeKey}: ${CASES} malformed requests all 4xx, plus ${EDGE_CASES} edge values 4xx or 200`, async (t) => {
      const cases = generateBodyCases(
        new Random(SEED + 3),
        themeUpdateEndpoint(ctx),
        { merchantId: ctx.merchantId, webhookId: "", scratchWebhookId: "" },
        server.adminToken,
        CASES,
        EDGE_CASES,
      );
      cases.push(...generateWrongTokenThemeCases(new Random(SEED + 4), ctx, server.adminToken, 30));
      report(await runAdminCases(server, cases, othersData), SEED, CASES, t);
    });

    it("the themes are as they were: the target's own values, the other merchant's untouched", async () => {
      assert.deepEqual(await themes(ctx.otherMerchantId), themesBefore.other);
      // A case with bytes that are not UTF-8 inside the name may pass (as in fuzz.test.ts): they are
      // read as U+FFFD around the target's own name, which is all that may have changed.
      const readable = (theme: any) => ({ ...theme, name: theme.name.replace(/\ufffd/g, "") });
      const own = (await themes(ctx.merchantId)).filter((theme: any) => theme.themeKey !== ctx.scratchThemeKey);
      const ownBefore = (themesBefore.own as any[]).filter((theme) => theme.themeKey !== ctx.scratchThemeKey);
      assert.deepEqual(own.map(readable), ownBefore);
    });
  });
}
