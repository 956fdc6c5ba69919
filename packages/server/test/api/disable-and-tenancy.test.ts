// POST /api/v1/paymentlinks/disable (docs/api.md#disable) and tenancy (issue #2, acceptance 6): a merchant
// cannot see, update, list or disable another merchant's link (404 2014, exactly as a link that
// does not exist), and cannot create a link on another merchant's terminal (2016).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { testBackends } from "../support/databases.ts";
import { as, assertError, assertOk, getLink, payByLink, rawRequest, setSalesCount, tokenizeByLink } from "../support/fixtures.ts";
import { type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";

const DISABLE = "/api/v1/paymentlinks/disable";
const UPDATE = "/api/v1/paymentlinks/update";

for (const backend of testBackends()) {
  describe(`disable payment link (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    const disable = (body: unknown, headers: Record<string, string> = {}) => server.api("POST", DISABLE, body, headers);

    it("disables a link at once and answers with the envelope only", async () => {
      const reference = await createLink(server, payByLink(server));
      const response = await disable({ paymentLinkReference: reference });
      assertOk(response);
      assert.deepEqual(Object.keys(response.body).sort(), ["responseDateTime", "responseIdentifier"]);
      assert.equal((await getLink(server, reference)).status, "Disabled");
    });

    it("is idempotent: disabling a disabled link succeeds", async () => {
      const reference = await createLink(server, payByLink(server));
      assertOk(await disable({ paymentLinkReference: reference }));
      assertOk(await disable({ paymentLinkReference: reference }));
      assert.equal((await getLink(server, reference)).status, "Disabled");
    });

    it("disables links in any state, and Disabled wins over the other states", async () => {
      const used = await createLink(server, payByLink(server, { maxSalesCount: 1 }));
      await setSalesCount(server, used, 1);
      const completed = await createLink(server, tokenizeByLink(server));
      await setSalesCount(server, completed, 1);
      for (const reference of [used, completed]) {
        assertOk(await disable({ paymentLinkReference: reference }));
        assert.equal((await getLink(server, reference)).status, "Disabled");
      }
    });

    it("keeps the submissions already made", async () => {
      const reference = await createLink(server, payByLink(server));
      await sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, completed)
                VALUES (${`sub${reference}`}, ${reference}, ${JSON.stringify([{ field: "EmailAddress", value: "a@example.com" }])}, 48900, 'ISK', 'approved', true)`.execute(
        server.db,
      );
      await setSalesCount(server, reference, 1);
      assertOk(await disable({ paymentLinkReference: reference }));
      const link = await getLink(server, reference);
      assert.equal(link.status, "Disabled");
      assert.equal(link.salesCount, 1);
      assert.equal(link.submissions.length, 1);
      assert.equal(link.submissions[0].checkoutReference, `sub${reference}`);
      assert.deepEqual(link.submissions[0].answers, [{ field: "EmailAddress", value: "a@example.com" }]);
      assert.equal(link.submissions[0].completed, true);
    });

    it("GET answers 404 2014 for a reference too long to exist (not a validation error)", async () => {
      assertError(await server.api("GET", `/api/v1/paymentlinks/${"r".repeat(65)}`), 404, "2014");
      assertError(await server.api("GET", `/api/v1/paymentlinks/${"r".repeat(5000)}`), 404, "2014");
    });

    it("answers 404 2014 for an unknown reference", async () => {
      assertError(await disable({ paymentLinkReference: "noSuchLink000000" }), 404, "2014", "noSuchLink000000");
    });

    it("validates its body like every POST", async () => {
      assertError(await disable({}), 400, "000", "paymentLinkReference");
      assertError(await disable({ paymentLinkReference: "" }), 400, "000", "paymentLinkReference");
      assertError(await disable({ paymentLinkReference: 42 }), 400, "1005", "paymentLinkReference");
      assertError(await disable({ paymentLinkReference: "x", reason: "because" }), 400, "1006", "reason");
      assertError(await disable({ paymentLinkReference: "r".repeat(65) }), 400, "2009", "paymentLinkReference");
      assertError(await rawRequest(server, "POST", DISABLE, { body: "", contentType: "application/json" }), 400, "1000");
      assertError(await rawRequest(server, "POST", DISABLE, { body: "{", contentType: "application/json" }), 400, "1000");
      assertError(
        await rawRequest(server, "POST", DISABLE, { body: "paymentLinkReference=x", contentType: "application/x-www-form-urlencoded" }),
        415,
        "3006",
      );
      assertError(await disable({ paymentLinkReference: "x" }, { "x-api-key": "" }), 401, "3001");
    });
  });

  describe(`tenancy: one merchant cannot reach another's links (${backend.name})`, () => {
    let server: TestServer;
    /** The owner of the link. */
    let owner: MerchantFixture;
    /** Another merchant, with a valid key of its own. */
    let intruder: MerchantFixture;
    let reference: string;
    let original: any;

    before(async () => {
      server = await startTestServer({ backend });
      owner = {
        merchantId: server.merchantId,
        apiKey: server.apiKey,
        terminalIdentifier: server.terminalIdentifier,
        themeKey: server.themeKey,
      };
      intruder = await server.addMerchant();
      reference = await createLink(server, payByLink(owner, { description: "Private order", themeKey: owner.themeKey }));
      original = await getLink(server, reference);
    });
    after(() => server?.close());

    /** The intruder's error for the owner's link must be the one a missing link gets. */
    const assertLikeMissing = async (
      forOwned: Awaited<ReturnType<TestServer["api"]>>,
      forMissing: Awaited<ReturnType<TestServer["api"]>>,
      owned: string,
      missing: string,
    ) => {
      assertError(forOwned, 404, "2014");
      assertError(forMissing, 404, "2014");
      assert.equal(
        forOwned.body.errorMessage.replace(owned, "REF"),
        forMissing.body.errorMessage.replace(missing, "REF"),
        "same message as for a link that does not exist",
      );
    };

    it("cannot see it (GET → 404 2014, as for a link that does not exist)", async () => {
      const missing = "AAAAAAAAAAAAAAAA";
      await assertLikeMissing(
        await server.api("GET", `/api/v1/paymentlinks/${reference}`, undefined, as(intruder)),
        await server.api("GET", `/api/v1/paymentlinks/${missing}`, undefined, as(intruder)),
        reference,
        missing,
      );
    });

    it("cannot update it (404 2014), not even with the owner's own GET result", async () => {
      const { submissions: _s, ...body } = original;
      const missing = "BBBBBBBBBBBBBBBB";
      await assertLikeMissing(
        await server.api("POST", UPDATE, { ...body, description: "hijacked" }, as(intruder)),
        await server.api("POST", UPDATE, { ...body, paymentLinkReference: missing, description: "hijacked" }, as(intruder)),
        reference,
        missing,
      );
      assertError(await server.api("POST", UPDATE, { paymentLinkReference: reference, status: "Disabled" }, as(intruder)), 404, "2014");
      assertError(await server.api("POST", UPDATE, { paymentLinkReference: reference, maxSalesCount: 1 }, as(intruder)), 404, "2014");
    });

    it("cannot disable it (404 2014)", async () => {
      const missing = "CCCCCCCCCCCCCCCC";
      await assertLikeMissing(
        await server.api("POST", DISABLE, { paymentLinkReference: reference }, as(intruder)),
        await server.api("POST", DISABLE, { paymentLinkReference: missing }, as(intruder)),
        reference,
        missing,
      );
    });

    it("cannot list it, nor find it by search", async () => {
      for (const query of ["", `?search=${reference}`, "?search=Private", "?status=Active", "?type=PayByLink"]) {
        const response = await server.api("GET", `/api/v1/paymentlinks${query}`, undefined, as(intruder));
        assertOk(response);
        assert.deepEqual(response.body.data, [], query);
        assert.equal(response.body.totalCount, 0, query);
      }
    });

    it("cannot create a link on the owner's terminal (2016) or with the owner's theme (2010)", async () => {
      assertError(
        await server.api("POST", "/api/v1/paymentlinks/create", payByLink(owner), as(intruder)),
        400,
        "2016",
        owner.terminalIdentifier,
      );
      assertError(
        await server.api("POST", "/api/v1/paymentlinks/create", payByLink(intruder, { themeKey: owner.themeKey }), as(intruder)),
        400,
        "2010",
      );
    });

    it("cannot move its own link to the owner's theme (2010)", async () => {
      const own = await createLink(server, payByLink(intruder), as(intruder));
      assertError(await server.api("POST", UPDATE, { paymentLinkReference: own, themeKey: owner.themeKey }, as(intruder)), 400, "2010");
    });

    it("left the owner's link exactly as it was, and the owner still reaches it", async () => {
      assert.deepEqual(await getLink(server, reference), original);
      const list = await server.api("GET", "/api/v1/paymentlinks", undefined, as(owner));
      assert.deepEqual(
        list.body.data.map((entry: any) => entry.paymentLinkReference),
        [reference],
      );
    });

    it("the owner cannot reach the intruder's links either", async () => {
      const theirs = await createLink(server, payByLink(intruder), as(intruder));
      assertError(await server.api("GET", `/api/v1/paymentlinks/${theirs}`, undefined, as(owner)), 404, "2014");
      assertError(await server.api("POST", DISABLE, { paymentLinkReference: theirs }, as(owner)), 404, "2014");
      assert.equal((await getLink(server, theirs, as(intruder))).status, "Active");
    });
  });
}
