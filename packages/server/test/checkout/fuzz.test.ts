// "Bad input always gets a clear 4xx error, never a 500 and never lost data", proved with
// generated form posts to POST /pay/{reference} of a real active link, on every backend: at least
// 300 posts, every answer an HTML page with 400/402/403/413/415/422, and afterwards the link has
// no sale, no submission and no queued webhook. No generated post is a valid card attempt: a post
// with a valid form token always has a certainly-invalid card or shopper field; the others (junk,
// missing or foreign token, cross-site headers, JSON / multipart / text bodies) may carry a valid
// card. The last test pays with the generator's form before breaking, so the breaking is what
// refuses the posts.
//
// The cases come from test/support/fuzz-checkout.ts (seeded: FUZZ_SEED explores others,
// FUZZ_CASES sends more). Requests go through node:http, so the bytes on the wire are exactly the
// generated ones.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { getLink, payByLink, rowCount, simplePayByLink } from "../support/fixtures.ts";
import { IN_FLIGHT, inPool, newOutcome, Random, report, tally } from "../support/fuzz.ts";
import { CHECKOUT_STATUSES, generateCheckoutCases, SHOPPER_INFO, type Tokens, validForm } from "../support/fuzz-checkout.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint } from "../support/outbox.ts";
import { closeRawAgent, type Reply, send } from "../support/raw-http.ts";
import { createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const CASES = Math.max(300, Number(process.env.FUZZ_CASES ?? 300));

for (const backend of testBackends()) {
  describe(`generated malformed checkout form posts never get a 5xx (${backend.name})`, () => {
    let server: TestServer;
    let reference: string;
    let otherReference: string;

    before(async () => {
      server = await startTestServer({ backend });
      // An endpoint, so that a post that paid would queue a webhook the test would see.
      await addWebhookEndpoint(server);
      reference = await createLink(server, payByLink(server, { shopperInfo: SHOPPER_INFO }));
      otherReference = await createLink(server, simplePayByLink(server));
    });
    after(async () => {
      closeRawAgent();
      await server?.close();
    });

    it(`POST /pay/{reference}: ${CASES} generated form posts, all HTML 4xx, no sale and no submission`, async (t) => {
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      const otherPage = await getPage(server.baseUrl, `/pay/${otherReference}`);
      const tokens: Tokens = { reference, token: hiddenInputs(page.html).csrfToken!, otherToken: hiddenInputs(otherPage.html).csrfToken! };
      assert.ok(tokens.token && tokens.otherToken);
      const cases = generateCheckoutCases(new Random(SEED + 300), tokens, CASES);

      const outcome = newOutcome();
      await inPool(cases, IN_FLIGHT, async (c, index) => {
        let response: Reply;
        try {
          response = await send(server.baseUrl, "POST", c.path, { body: c.body, headers: c.headers });
        } catch (error) {
          outcome.failures.push(`#${index} ${c.label}: request failed: ${String(error)}`);
          return;
        }
        outcome.sent++;
        tally(outcome, String(response.status));
        try {
          assert.ok(CHECKOUT_STATUSES.has(response.status), `status ${response.status} is not one of ${[...CHECKOUT_STATUSES].join("/")}`);
          assert.match(response.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/, "an HTML page");
          assert.match(response.text, /^<!DOCTYPE html>/i, "a whole page");
        } catch (error) {
          const sent = c.body ? c.body.subarray(0, 200).toString("latin1") : "(no body)";
          outcome.failures.push(
            `#${index} ${c.label}: ${(error as Error).message.split("\n")[0]} — got ${response.status} ${textOf(response.text).slice(0, 160)} — headers ${JSON.stringify(c.headers)} — sent ${JSON.stringify(sent)}`,
          );
        }
      });
      report(outcome, SEED, CASES, t);

      const link = await getLink(server, reference);
      assert.equal(link.salesCount, 0, "no sale");
      assert.deepEqual(link.submissions, [], "no submission");
      assert.equal(link.status, "Active");
      assert.equal(await rowCount(server, "submissions"), 0, "no submission on any link");
      assert.equal(await rowCount(server, "webhook_deliveries"), 0, "no webhook queued");
    });

    it("the generator's form before breaking is a valid payment (so the breaking is what refuses the posts above)", async () => {
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const form = validForm(new Random(SEED), hiddenInputs(page.html).csrfToken!);
      const response = await postForm(server.baseUrl, reference, Object.fromEntries(form.map((pair) => [pair.name, pair.value])));
      assert.equal(response.status, 200, textOf(response.html).slice(0, 300));
      const link = await getLink(server, reference);
      assert.equal(link.salesCount, 1);
      assert.equal(link.submissions.length, 1);
      assert.equal(await rowCount(server, "webhook_deliveries"), 1, "a sale queues a webhook, so the count of 0 above could fail");
    });
  });
}
