// A refund or a reversal asked for in the portal moves money once per question, over real HTTP on
// both databases: the question page's form carries a one-time attempt, so the same form posted
// twice at once (a double click) or again later ("Back" and submit) makes one refund, and a post
// that did not come from the question is refused with a 400 that says nothing was refunded.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";

for (const backend of testBackends()) {
  describe(`portal refunds and reversals ask once (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
    });
    after(() => server?.close());

    /** A sold link's payment page path and its payfacReference. */
    async function sale(): Promise<{ path: string; payfacReference: string }> {
      const { payfacReference, linkReference } = await sellLink(server, 48900);
      const { checkoutReference } = (await getLink(server, linkReference)).submissions[0];
      return { path: `/portal/payments/${checkoutReference}`, payfacReference };
    }

    const modificationsOf = (payfacReference: string) =>
      server.db
        .selectFrom("refunds")
        .select(["kind", "amount"])
        .where("original_payfac_reference", "=", payfacReference)
        .orderBy("created_at")
        .execute();

    test("the refund question posted twice at once, and once more later, refunds once", async () => {
      const { path, payfacReference } = await sale();
      const question = await portal.get(`${path}/refund?amount=100&refundReason=RETURN`);
      assert.equal(question.status, 200);
      assert.match(question.html, /name="attempt" value="[0-9a-f-]{36}"/, "the question carries a one-time attempt");
      const answers = await Promise.all([portal.post(`${path}/refund`, {}, question), portal.post(`${path}/refund`, {}, question)]);
      assert.deepEqual(
        answers.map((a) => [a.status, a.location]),
        [
          [303, `${path}?refunded=1`],
          [303, `${path}?refunded=1`],
        ],
      );
      const again = await portal.post(`${path}/refund`, {}, question);
      assert.equal(again.status, 303);
      assert.deepEqual(await modificationsOf(payfacReference), [{ kind: "refund", amount: 10000 }]);

      // A new question is a new refund.
      const second = await portal.get(`${path}/refund?amount=50&refundReason=RETURN`);
      assert.equal((await portal.post(`${path}/refund`, {}, second)).status, 303);
      assert.deepEqual(await modificationsOf(payfacReference), [
        { kind: "refund", amount: 10000 },
        { kind: "refund", amount: 5000 },
      ]);
    });

    test("a refund or a reversal posted without the question's attempt is refused and moves nothing", async () => {
      const { path, payfacReference } = await sale();
      const page = await portal.get(path);
      for (const [action, fields] of [
        ["refund", { amount: "100", refundReason: "RETURN" }],
        ["refund", { amount: "100", refundReason: "RETURN", attempt: "not-a-uuid" }],
        ["reverse", {}],
      ] as const) {
        const refused = await portal.post(`${path}/${action}`, fields, page);
        assert.equal(refused.status, 400, `${action} ${JSON.stringify(fields)}`);
        assert.match(refused.text, /nothing was refunded/);
      }
      assert.deepEqual(await modificationsOf(payfacReference), []);
    });

    test("the reversal question posted twice at once reverses once; a refused refund leaves its attempt free", async () => {
      const { path, payfacReference } = await sale();
      // Too much is refused, and the same attempt may then be used for what is allowed.
      const attempt = randomUUID();
      const page = await portal.get(path);
      const tooMuch = await portal.post(`${path}/refund`, { amount: "999", refundReason: "RETURN", attempt }, page);
      assert.equal(tooMuch.status, 400);
      assert.equal((await portal.post(`${path}/refund`, { amount: "10", refundReason: "RETURN", attempt }, page)).status, 303);

      const question = await portal.get(`${path}/reverse`);
      const answers = await Promise.all([portal.post(`${path}/reverse`, {}, question), portal.post(`${path}/reverse`, {}, question)]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [303, 303],
      );
      assert.deepEqual(await modificationsOf(payfacReference), [
        { kind: "refund", amount: 1000 },
        { kind: "reversal", amount: 47900 },
      ]);
    });
  });
}
