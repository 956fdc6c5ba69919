// Idempotency-Key on the POST endpoints (docs/api.md#idempotency): the same key and body replay the first
// response with `Idempotent-Replayed: true`; another body is 422 3004; a request while the first
// is still running is 409 3007. Keys are per merchant.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { testBackends } from "../support/databases.ts";
import { as, assertError, assertOk, countLinks, getLink, payByLink, rawRequest, simplePayByLink } from "../support/fixtures.ts";
import { type ApiResponse, type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";

const CREATE = "/api/v1/paymentlinks/create";
const UPDATE = "/api/v1/paymentlinks/update";
const DISABLE = "/api/v1/paymentlinks/disable";

for (const backend of testBackends()) {
  describe(`Idempotency-Key (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    /** Each test works as a fresh merchant, so link counts are its own. */
    let merchant: MerchantFixture;
    const post = (path: string, body: unknown, key?: string, who: MerchantFixture = merchant) =>
      server.api("POST", path, body, as(who, key === undefined ? {} : { "idempotency-key": key }));
    const fresh = async () => {
      merchant = await server.addMerchant();
      return merchant;
    };
    const keyRow = async (who: MerchantFixture, key: string) =>
      (
        await sql<{
          state: string;
          request_hash: string;
        }>`SELECT state, request_hash FROM idempotency_keys WHERE merchant_id = ${who.merchantId} AND key = ${key}`.execute(server.db)
      ).rows[0];

    it("replays a create sent again with the same key and body: same status and body, one link", async () => {
      await fresh();
      const body = payByLink(merchant);
      const first = await post(CREATE, body, "order-1001");
      assertOk(first);
      assert.equal(first.headers.get("idempotent-replayed"), null, "the first response is not a replay");
      const second = await post(CREATE, body, "order-1001");
      assert.equal(second.status, 200);
      assert.equal(second.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(second.body, first.body);
      const third = await post(CREATE, body, "order-1001");
      assert.deepEqual(third.body, first.body);
      assert.equal(await countLinks(server, merchant.merchantId), 1);
      assert.equal((await getLink(server, first.body.paymentLinkReference, as(merchant))).status, "Active");
    });

    it("treats the same body with its keys in another order as the same body: a replay", async () => {
      await fresh();
      const body = payByLink(merchant, {
        description: "Reordered",
        shopperInfo: [{ field: "Ssn", requirementType: "Prefilled", prefilledValue: "010130-3019" }],
      });
      const reverse = (value: any): any =>
        Array.isArray(value)
          ? value.map(reverse)
          : value !== null && typeof value === "object"
            ? Object.fromEntries(
                Object.entries(value)
                  .reverse()
                  .map(([k, v]) => [k, reverse(v)]),
              )
            : value;
      const reordered = reverse(body);
      assert.notEqual(JSON.stringify(reordered), JSON.stringify(body), "the keys really are in another order");
      assert.notEqual(JSON.stringify(reordered.items[0]), JSON.stringify((body.items as unknown[])[0]), "inside items too");
      const first = await post(CREATE, body, "reordered");
      assertOk(first);
      const second = await post(CREATE, reordered, "reordered");
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.equal(second.headers.get("idempotent-replayed"), "true");
      assert.equal(second.body.paymentLinkReference, first.body.paymentLinkReference);
      assert.deepEqual(second.body, first.body);
      assert.equal(await countLinks(server, merchant.merchantId), 1);

      // Only the order of object keys is ignored: the items in another order are another body.
      const swapped = { ...reordered, items: [...reordered.items].reverse() };
      assertError(await post(CREATE, swapped, "reordered"), 422, "3004", "Idempotency-Key");
      const changed = {
        ...reordered,
        items: reordered.items.map((item: any, i: number) => (i === 0 ? { ...item, name: "Vettlingar" } : item)),
      };
      assertError(await post(CREATE, changed, "reordered"), 422, "3004", "Idempotency-Key");
      assert.equal(await countLinks(server, merchant.merchantId), 1);
    });

    it("creates a new link for each new key", async () => {
      await fresh();
      const body = payByLink(merchant);
      const a = await post(CREATE, body, "key-a");
      const b = await post(CREATE, body, "key-b");
      assertOk(a);
      assertOk(b);
      assert.notEqual(a.body.paymentLinkReference, b.body.paymentLinkReference);
      assert.equal(await countLinks(server, merchant.merchantId), 2);
    });

    it("refuses the same key with another body (422 3004)", async () => {
      await fresh();
      assertOk(await post(CREATE, payByLink(merchant), "reused"));
      const response = await post(CREATE, payByLink(merchant, { description: "something else" }), "reused");
      assertError(response, 422, "3004", "Idempotency-Key");
      assert.equal(response.headers.get("idempotent-replayed"), null);
      assert.equal(await countLinks(server, merchant.merchantId), 1);
    });

    it("refuses the same key on another endpoint (422 3004)", async () => {
      await fresh();
      const reference = (await post(CREATE, payByLink(merchant), "cross-endpoint")).body.paymentLinkReference;
      assertError(await post(DISABLE, { paymentLinkReference: reference }, "cross-endpoint"), 422, "3004");
      assert.equal((await getLink(server, reference, as(merchant))).status, "Active");
    });

    it("scopes keys per merchant", async () => {
      const first = await fresh();
      const second = await server.addMerchant();
      const a = await post(CREATE, payByLink(first), "shared-key", first);
      const b = await post(CREATE, payByLink(second), "shared-key", second);
      assertOk(a);
      assertOk(b);
      assert.equal(b.headers.get("idempotent-replayed"), null);
      assert.equal(await countLinks(server, first.merchantId), 1);
      assert.equal(await countLinks(server, second.merchantId), 1);
    });

    it("replays a business-rule error too (the first response, whatever it was)", async () => {
      await fresh();
      const body = payByLink(merchant, { terminalIdentifier: "000000000000" });
      const first = await post(CREATE, body, "bad-terminal");
      assertError(first, 400, "2016");
      const second = await post(CREATE, body, "bad-terminal");
      assert.equal(second.status, 400);
      assert.equal(second.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(second.body, first.body);
    });

    it("does not consume a key on a request that fails validation", async () => {
      await fresh();
      assertError(await post(CREATE, payByLink(merchant, { amount: "48900" }), "after-typo"), 400, "1005");
      const retry = await post(CREATE, payByLink(merchant), "after-typo");
      assertOk(retry);
      assert.equal(retry.headers.get("idempotent-replayed"), null);
    });

    it("replays update and disable", async () => {
      await fresh();
      const reference = await createLink(server, payByLink(merchant), as(merchant));
      const change = { paymentLinkReference: reference, description: "once" };
      const u1 = await post(UPDATE, change, "upd-1");
      const u2 = await post(UPDATE, change, "upd-1");
      assertOk(u1);
      assert.deepEqual(u2.body, u1.body);
      assert.equal(u2.headers.get("idempotent-replayed"), "true");
      const d1 = await post(DISABLE, { paymentLinkReference: reference }, "dis-1");
      const d2 = await post(DISABLE, { paymentLinkReference: reference }, "dis-1");
      assertOk(d1);
      assert.deepEqual(d2.body, d1.body);
      assert.equal(d2.headers.get("idempotent-replayed"), "true");
      assert.equal((await getLink(server, reference, as(merchant))).status, "Disabled");
    });

    it("answers 409 3007 while a request with the same key is still running", async () => {
      await fresh();
      const body = payByLink(merchant);
      assertOk(await post(CREATE, body, "done-key"));
      // A request in flight is a 'running' row with that request's hash: copy the hash of the
      // finished one under a new key, as if its request were still being processed.
      const { request_hash: requestHash } = (await keyRow(merchant, "done-key"))!;
      await sql`INSERT INTO idempotency_keys (merchant_id, key, request_hash, state) VALUES (${merchant.merchantId}, 'running-key', ${requestHash}, 'running')`.execute(
        server.db,
      );
      const response = await post(CREATE, body, "running-key");
      assertError(response, 409, "3007");
      assert.equal(await countLinks(server, merchant.merchantId), 1);
      // Another body with a key in flight is still a reuse of the key (3004).
      assertError(await post(CREATE, payByLink(merchant, { description: "other" }), "running-key"), 422, "3004");
    });

    it("runs one of many concurrent requests with one key; the others get 3007 or the replay", async () => {
      await fresh();
      const body = simplePayByLink(merchant);
      const responses = await Promise.all(Array.from({ length: 8 }, () => post(CREATE, body, "burst")));
      const executed = responses.filter((r) => r.status === 200 && r.headers.get("idempotent-replayed") === null);
      assert.equal(executed.length, 1, `exactly one request ran: ${responses.map((r) => r.status).join(",")}`);
      for (const response of responses) {
        if (response.status === 200) assert.deepEqual(response.body, executed[0]!.body);
        else assertError(response, 409, "3007");
      }
      assert.equal(await countLinks(server, merchant.merchantId), 1);
    });

    if (backend.name === "postgres") {
      it("two concurrent requests with one key: one 200, the other 409 3007 (first held mid-request)", async () => {
        await fresh();
        const body = payByLink(merchant);
        let first: Promise<ApiResponse> | undefined;
        // Hold the terminal row: the first request claims the key, then waits on the foreign key
        // check of its INSERT until this transaction ends, so it is certainly still running.
        await server.db.transaction().execute(async (trx) => {
          await sql`SELECT 1 FROM terminals WHERE terminal_identifier = ${merchant.terminalIdentifier} FOR UPDATE`.execute(trx);
          first = post(CREATE, body, "held");
          await waitUntil(async () => (await keyRow(merchant, "held"))?.state === "running", 5000, "the first request to claim the key");
          const second = await post(CREATE, body, "held");
          assertError(second, 409, "3007");
        });
        const response = await first!;
        assertOk(response);
        assert.equal(response.headers.get("idempotent-replayed"), null);
        const replay = await post(CREATE, body, "held");
        assert.deepEqual(replay.body, response.body);
        assert.equal(replay.headers.get("idempotent-replayed"), "true");
        assert.equal(await countLinks(server, merchant.merchantId), 1);
      });
    }

    it("checks the key itself: empty is 000, over 255 characters is 2009", async () => {
      await fresh();
      assertError(await post(CREATE, payByLink(merchant), ""), 400, "000", "Idempotency-Key");
      assertError(await post(CREATE, payByLink(merchant), "k".repeat(256)), 400, "2009", "Idempotency-Key");
      assertOk(await post(CREATE, payByLink(merchant), "k".repeat(255)));
      assert.equal(await countLinks(server, merchant.merchantId), 1);
    });

    it("answers a deeply nested ignored field with 400, not a 500, when a key is sent", async () => {
      await fresh();
      const reference = await createLink(server, payByLink(merchant), as(merchant));
      const deep = "[".repeat(50_000) + "]".repeat(50_000);
      const response = await rawRequest({ baseUrl: server.baseUrl, apiKey: merchant.apiKey }, "POST", UPDATE, {
        body: `{"paymentLinkReference":"${reference}","submissions":${deep}}`,
        contentType: "application/json",
        headers: { "idempotency-key": "deep" },
      });
      assertError(response, 400, "2009", "submissions");
    });
  });
}
