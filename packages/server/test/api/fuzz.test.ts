// Generated malformed requests — at least 500 per POST endpoint of the JSON API (create, update,
// disable; charge a saved card, refund, reverse, disable a token), on every backend — never get a
// 5xx. Every answer must be a proper error body with a catalogue code whose HTTP status it carries,
// and afterwards the database must hold only the links, charges, refunds and disabled tokens it
// held before.
//
// The cases come from test/support/fuzz-api.ts (seeded: FUZZ_SEED explores others, FUZZ_CASES
// changes the number per endpoint); no case may succeed.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { as, assertErrorShape, getLink, rawRequest } from "../support/fixtures.ts";
import { IN_FLIGHT, inPool, Random } from "../support/fuzz.ts";
import { chargeModel, disableTokenModel, refundModel, reverseModel } from "../support/fuzz-after-sale.ts";
import { type Case, createModel, disableModel, generateCases, updateModel } from "../support/fuzz-api.ts";
import { type ApiResponse, type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_602);
const CASES_PER_ENDPOINT = Math.max(500, Number(process.env.FUZZ_CASES ?? 600));

interface Outcome {
  failures: string[];
  codes: Map<string, number>;
}

async function runCases(server: TestServer, merchant: MerchantFixture, path: string, cases: Case[]): Promise<Outcome> {
  const failures: string[] = [];
  const codes = new Map<string, number>();
  await inPool(cases, IN_FLIGHT, async (c, index) => {
    let response: ApiResponse;
    try {
      response = await rawRequest({ baseUrl: server.baseUrl, apiKey: merchant.apiKey }, "POST", path, {
        body: c.body,
        contentType: c.contentType,
        headers: c.headers,
      });
    } catch (error) {
      failures.push(`#${index} ${c.label}: request failed: ${String(error)}`);
      return;
    }
    const code = typeof response.body === "object" && response.body !== null ? String(response.body.errorCode) : "(none)";
    codes.set(`${response.status} ${code}`, (codes.get(`${response.status} ${code}`) ?? 0) + 1);
    try {
      assert.ok(response.status >= 400 && response.status < 500, `status ${response.status} is not 4xx`);
      assertErrorShape(response);
    } catch (error) {
      const sent = typeof c.body === "string" ? c.body.slice(0, 300) : `<${c.body?.length ?? 0} bytes>`;
      failures.push(
        `#${index} ${c.label}: ${(error as Error).message.split("\n")[0]} — got ${response.status} ${JSON.stringify(response.body).slice(0, 200)} — sent ${sent}`,
      );
    }
  });
  return { failures, codes };
}

function report(outcome: Outcome, context: { diagnostic(message: string): void }): void {
  const summary = [...outcome.codes]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}×${n}`)
    .join(", ");
  context.diagnostic(`seed ${SEED}; responses: ${summary}`);
  assert.deepEqual(
    outcome.failures.slice(0, 15),
    [],
    `${outcome.failures.length} of the generated requests were not answered with a 4xx error body`,
  );
  const total = [...outcome.codes.values()].reduce((a, b) => a + b, 0);
  assert.ok(total >= 500, `${total} requests sent`);
}

async function linkCount(server: TestServer): Promise<number> {
  const { rows } = await sql<{ count: string | number }>`SELECT count(*) AS count FROM payment_links`.execute(server.db);
  return Number(rows[0]!.count);
}

for (const backend of testBackends()) {
  describe(`generated malformed requests never get a 5xx (${backend.name})`, () => {
    let server: TestServer;
    let merchant: MerchantFixture;
    let updateTarget: string;
    let updateTargetBefore: any;
    let disableTarget: string;
    let linksBefore: number;

    before(async () => {
      server = await startTestServer({ backend });
      merchant = await server.addMerchant();
      updateTarget = await createLink(
        server,
        {
          type: "PayByLink",
          terminalIdentifier: merchant.terminalIdentifier,
          amount: 48900,
          currency: "ISK",
          items: [{ name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
          shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
        },
        as(merchant),
      );
      disableTarget = await createLink(
        server,
        { type: "PayByLink", terminalIdentifier: merchant.terminalIdentifier, amount: 1000, currency: "EUR", items: [] },
        as(merchant),
      );
      updateTargetBefore = await getLink(server, updateTarget, as(merchant));
      linksBefore = await linkCount(server);
    });
    after(() => server?.close());

    it(`POST /paymentlinks/create: ${CASES_PER_ENDPOINT} malformed requests, all 4xx`, async (t) => {
      const cases = generateCases(new Random(SEED), createModel(merchant), CASES_PER_ENDPOINT);
      report(await runCases(server, merchant, "/api/v1/paymentlinks/create", cases), t);
      assert.equal(await linkCount(server), linksBefore, "no link was created");
    });

    it(`POST /paymentlinks/update: ${CASES_PER_ENDPOINT} malformed requests, all 4xx`, async (t) => {
      const { submissions: _s, ...link } = updateTargetBefore;
      const cases = generateCases(new Random(SEED + 1), updateModel(link), CASES_PER_ENDPOINT);
      report(await runCases(server, merchant, "/api/v1/paymentlinks/update", cases), t);
      assert.deepEqual(await getLink(server, updateTarget, as(merchant)), updateTargetBefore, "the link was not changed");
      assert.equal(await linkCount(server), linksBefore);
    });

    it(`POST /paymentlinks/disable: ${CASES_PER_ENDPOINT} malformed requests, all 4xx`, async (t) => {
      const cases = generateCases(new Random(SEED + 2), disableModel(disableTarget), CASES_PER_ENDPOINT);
      report(await runCases(server, merchant, "/api/v1/paymentlinks/disable", cases), t);
      assert.equal((await getLink(server, disableTarget, as(merchant))).status, "Active", "the link was not disabled");
      assert.equal(await linkCount(server), linksBefore);
    });

    it(`the after-sale endpoints (charge, refund, reverse, disable token): ${CASES_PER_ENDPOINT} malformed requests each, all 4xx; no refund, charge or disable recorded`, async (t) => {
      const shop = {
        ...server,
        ...merchant,
        api: (m: string, p: string, b?: unknown, h?: Record<string, string>) => server.api(m, p, b, { ...as(merchant), ...h }),
      };
      const token = await saveCard(shop, undefined, as(merchant));
      const sale = await sellLink(shop, 48900);
      const count = async (table: "token_payments" | "refunds" | "disabled_tokens") =>
        Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(server.db)).rows[0]!.n);
      const before = { charges: await count("token_payments"), refunds: await count("refunds"), disabled: await count("disabled_tokens") };
      const endpoints = [
        ["/api/v1/payment", chargeModel(merchant.terminalIdentifier, token)],
        ["/api/v1/modification/refund", refundModel(sale.payfacReference, 48900)],
        ["/api/v1/modification/reverse", reverseModel(sale.payfacReference)],
        ["/api/v1/tokens/disable", disableTokenModel(token)],
      ] as const;
      for (const [index, [path, model]] of endpoints.entries()) {
        report(await runCases(server, merchant, path, generateCases(new Random(SEED + 10 + index), model, CASES_PER_ENDPOINT)), t);
      }
      assert.deepEqual(
        { charges: await count("token_payments"), refunds: await count("refunds"), disabled: await count("disabled_tokens") },
        before,
        "no refused request recorded a charge, a refund or a disable",
      );
      const payment = await server.api("GET", `/api/v1/payments/${sale.payfacReference}`, undefined, as(merchant));
      assert.equal(payment.body.payment.refundedAmount, 0);
      assert.equal(payment.body.payment.refunds.length, 0);
    });

    it("the server still works normally afterwards", async () => {
      const response = await server.api("GET", "/api/v1/paymentlinks?pageSize=100", undefined, as(merchant));
      assert.equal(response.status, 200);
      const references = response.body.data.map((e: any) => e.paymentLinkReference);
      for (const reference of [updateTarget, disableTarget]) assert.ok(references.includes(reference));
      const ready = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 200);
    });
  });
}
