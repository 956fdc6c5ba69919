// Creating hosted-checkout sessions (docs/api.md#hosted-checkout-sessions) on every backend: the
// bodies the live gateway's e-commerce plugins send are accepted, every rule of the create answers
// its catalogue code, the status endpoint's 404s, and the links API never shows a session.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { as, assertError, assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { createSession, sessionStatus, wooCommerceBody } from "../support/sessions.ts";
import { getPage, textOf } from "../support/shopper.ts";

const hoursAhead = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

for (const backend of testBackends()) {
  describe(`creating hosted-checkout sessions (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server.close());

    const create = (body: unknown, headers: Record<string, string> = {}) => server.api("POST", "/api/v1/hostedcheckout", body, headers);

    it("accepts the Adobe Commerce body: amount as a string of digits, a negative Discount line, culture", async () => {
      const response = await create({
        amount: "489000",
        currency: "ISK",
        reference: "000000123",
        terminalIdentifier: server.terminalIdentifier,
        returnUrl: "https://magento.example/straumur/payment/return",
        culture: "is",
        items: [
          { name: "Lopapeysa", quantity: 1, unitPrice: 509000, amountWithoutDiscount: 509000, amount: 509000 },
          { name: "Discount", quantity: 1, unitPrice: -20000, amountWithoutDiscount: -20000, amount: -20000 },
        ],
      });
      assertOk(response);
      assert.match(response.body.checkoutReference, /^[a-z0-9]{50}$/);
      const page = await getPage(server.baseUrl, `/checkout/${response.body.checkoutReference}`);
      assert.equal(page.status, 200);
      const text = textOf(page.html);
      assert.match(text, /Discount/);
      assert.match(text, /−200 kr\./, "the discount line is shown as a negative amount");
      assert.match(text, /4\.890 kr\./, "the total");
    });

    it("accepts the Ekom body: CardOnFile at amount 0, items without amountWithoutDiscount, quantity 1.0", async () => {
      // 1.0 as the .NET client writes it: JSON text, so the number is sent as written.
      const body = JSON.stringify({
        amount: 0,
        currency: "EUR",
        reference: "ekom-order-9;retry:2",
        terminalIdentifier: server.terminalIdentifier,
        returnUrl: "http://umbraco.local/ekom/return",
        recurringProcessingModel: "CardOnFile",
        merchantShopperReference: "member-1007",
        items: [{ name: "Membership", unitPrice: 0, amount: 0, quantity: 1.0 }],
      }).replace('"quantity":1', '"quantity":1.0');
      assert.match(body, /"quantity":1\.0/);
      const response = await create(body);
      assertOk(response);
      const status = await sessionStatus(server, response.body.checkoutReference);
      assert.deepEqual([status.body.status, status.body.payfacReference], ["New", null]);
    });

    it("accepts quantity 2.0 and field names in any letter case", async () => {
      const body = JSON.stringify(
        wooCommerceBody(server, { amount: 20000, items: [{ NAME: "Kaffi", AMOUNT: 20000, QUANTITY: 2, unitprice: 10000 }] }),
      ).replace('"QUANTITY":2', '"QUANTITY":2.0');
      assertOk(await create(body));
    });

    it("refuses what the rules refuse, each with its code", async () => {
      const base = wooCommerceBody(server);
      const cases: Array<[string, Record<string, unknown>, number, string]> = [
        ["expiresAt 30 h ahead", { expiresAt: hoursAhead(30) }, 400, "2009"],
        ["expiresAt in the past", { expiresAt: hoursAhead(-1) }, 400, "2005"],
        ["amount as another string", { amount: "4890.00" }, 400, "1005"],
        ["amount as a negative string", { amount: "-489000" }, 400, "1005"],
        ["amount 0 without recurringProcessingModel", { amount: 0, items: [] }, 400, "2002"],
        ["ISK not ending in 00", { amount: 489001, items: [] }, 400, "2026"],
        ["amount over 10^11", { amount: "100000000100", items: [] }, 400, "2019"],
        ["items not adding up", { amount: 490000 }, 400, "2007"],
        ["an unknown field", { tip: 100 }, 400, "1006"],
        ["an unknown item field", { items: [{ name: "x", amount: 489000, colour: "red" }] }, 400, "1006"],
        ["an item without a name", { items: [{ amount: 489000 }] }, 400, "000"],
        ["reference missing", { reference: undefined }, 400, "000"],
        ["reference over 100", { reference: "x".repeat(101) }, 400, "2009"],
        ["reference with a control character", { reference: "a\u0007b" }, 400, "2008"],
        ["returnUrl not a URL", { returnUrl: "shop/return" }, 400, "2008"],
        ["returnUrl a script", { returnUrl: "javascript:alert(1)" }, 400, "2008"],
        ["captureHoursDelay 0", { captureHoursDelay: 0 }, 400, "2002"],
        ["captureHoursDelay 673", { captureHoursDelay: 673 }, 400, "2009"],
        ["merchantShopperReference too short", { merchantShopperReference: "ab" }, 400, "2012"],
        ["shopperContact not an e-mail", { shopperContact: "nobody" }, 400, "2008"],
        ["an unknown culture", { culture: "de" }, 400, "2003"],
        ["another merchant's terminal", { terminalIdentifier: "000000000000" }, 400, "2016"],
        ["an unknown theme", { themeKey: "thm_nothing" }, 400, "2010"],
      ];
      for (const [what, overrides, status, code] of cases) {
        const response = await create({ ...base, ...overrides });
        assert.equal(`${response.status} ${response.body.errorCode}`, `${status} ${code}`, `${what}: ${JSON.stringify(response.body)}`);
        assertError(response, status, code);
      }
    });

    it("answers hostile and malformed bodies with a 4xx in the error format, never a 5xx, and makes no session", async () => {
      const base = wooCommerceBody(server);
      const count = async () =>
        Number(
          (
            await server.db
              .selectFrom("payment_links")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("kind", "=", "session")
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const bodies: unknown[] = [
        "{",
        "[]",
        "null",
        '"text"',
        JSON.stringify({ ...base, amount: { value: 1 } }),
        JSON.stringify({ ...base, amount: [489000] }),
        JSON.stringify({ ...base, amount: 4890.5 }),
        JSON.stringify({ ...base, amount: 1e308 }),
        JSON.stringify({ ...base, amount: "1e5" }),
        JSON.stringify({ ...base, amount: " 489000" }),
        JSON.stringify({ ...base, amount: "9".repeat(30) }),
        JSON.stringify({ ...base, amount: "" }),
        JSON.stringify({ ...base, items: "Lopapeysa" }),
        JSON.stringify({ ...base, items: [null] }),
        JSON.stringify({ ...base, items: [{ name: "x", amount: "-" }] }),
        JSON.stringify({ ...base, items: [{ name: "x", amount: 489000, quantity: 0 }] }),
        JSON.stringify({ ...base, items: [{ name: "x", amount: 489000, quantity: 1.5 }] }),
        JSON.stringify({ ...base, items: Array.from({ length: 201 }, () => ({ name: "x", amount: 0 })) }),
        JSON.stringify({ ...base, reference: "a\u0000b" }),
        JSON.stringify({ ...base, reference: "\ud800" }),
        JSON.stringify({ ...base, returnUrl: "https://exa mple.com/" }),
        JSON.stringify({ ...base, returnUrl: `https://shop.example/${"x".repeat(2100)}` }),
        JSON.stringify({ ...base, expiresAt: "2026-02-30T00:00:00Z" }),
        JSON.stringify({ ...base, isManualCapture: "yes" }),
        JSON.stringify(base).replace("{", '{"__proto__":{"amount":1},'),
        JSON.stringify({ ...base, Amount: 489000 }),
        `{"a":${"[".repeat(40)}${"]".repeat(40)}}`,
      ];
      for (const body of bodies) {
        const response = await create(body);
        assert.ok(response.status >= 400 && response.status < 500, `${String(body).slice(-120)} → ${response.status}`);
        assert.equal(typeof response.body.errorCode, "string", String(body).slice(0, 80));
      }
      assert.equal(await count(), before, "no session was made");
    });

    it("takes null for what it does not have, http return URLs on any host, : and ; in the order id", async () => {
      const response = await create(
        wooCommerceBody(server, {
          reference: "order:17;a",
          returnUrl: "http://test-shop.example:8080/return?x=1#done",
          expiresAt: null,
          culture: null,
          themeKey: null,
          items: null,
          isManualCapture: null,
          captureHoursDelay: null,
          isPreAuth: null,
          recurringProcessingModel: null,
          merchantShopperReference: null,
          shopperContact: null,
          abandonUrl: null,
        }),
      );
      assertOk(response);
      const stored = await server.db
        .selectFrom("payment_links")
        .select(["valid_until", "culture", "order_reference", "max_sales_count", "is_manual_capture"])
        .where("reference", "=", response.body.checkoutReference)
        .executeTakeFirstOrThrow();
      const life = new Date(stored.valid_until!).getTime() - Date.now();
      assert.ok(life > 23.9 * 3_600_000 && life <= 24 * 3_600_000, "a session without expiresAt lives 24 hours");
      assert.deepEqual(
        [stored.culture, stored.order_reference, stored.max_sales_count, stored.is_manual_capture],
        ["is", "order:17;a", 1, false],
      );
    });

    it("stores isManualCapture, captureHoursDelay and isPreAuth, and the payment records its manual capture", async () => {
      const created = await createSession(server, { isManualCapture: true, captureHoursDelay: 48, isPreAuth: true, reference: "mc-1" });
      const row = await server.db
        .selectFrom("payment_links")
        .select(["is_manual_capture", "capture_hours_delay", "is_pre_auth"])
        .where("reference", "=", created.checkoutReference)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { is_manual_capture: true, capture_hours_delay: 48, is_pre_auth: true });
      const { paySession } = await import("../support/sessions.ts");
      assert.equal((await paySession(server.baseUrl, created.checkoutReference)).status, 303);
      const payment = await server.db
        .selectFrom("submissions")
        .select(["manual_capture", "state"])
        .where("link_reference", "=", created.checkoutReference)
        .executeTakeFirstOrThrow();
      assert.deepEqual(payment, { manual_capture: true, state: "approved" });
    });

    it("replays an Idempotency-Key like every create, and refuses it with another body", async () => {
      const headers = { "idempotency-key": `order-1046-${backend.name}` };
      const body = wooCommerceBody(server, { reference: "1046" });
      const first = await create(body, headers);
      const again = await create(body, headers);
      assertOk(first);
      assert.equal(again.body.checkoutReference, first.body.checkoutReference);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assertError(await create({ ...body, reference: "1047" }, headers), 422, "3004");
    });

    it("reads an unknown session, another merchant's, and a link as 404 2014", async () => {
      assertError(await sessionStatus(server, "x".repeat(50)), 404, "2014");
      const created = await createSession(server);
      const other = await server.addMerchant();
      assertError(await server.api("GET", `/api/v1/hostedcheckout/status/${created.checkoutReference}`, undefined, as(other)), 404, "2014");
      const link = await server.api("POST", "/api/v1/paymentlinks/create", {
        type: "PayByLink",
        terminalIdentifier: server.terminalIdentifier,
        amount: 1000,
        currency: "ISK",
        items: [],
      });
      assertError(await sessionStatus(server, link.body.paymentLinkReference), 404, "2014");
      assert.equal((await getPage(server.baseUrl, `/checkout/${link.body.paymentLinkReference}`)).status, 404);
      assert.equal((await getPage(server.baseUrl, `/pay/${created.checkoutReference}`)).status, 404);
    });

    it("never shows a session in the links API: get, list, its total, update and disable", async () => {
      const shop = await server.addMerchant();
      const mine = (method: string, path: string, body?: unknown) => server.api(method, path, body, as(shop));
      const created = await mine("POST", "/api/v1/hostedcheckout/", wooCommerceBody(shop));
      assertOk(created);
      const reference = created.body.checkoutReference;
      assertError(await mine("GET", `/api/v1/paymentlinks/${reference}`), 404, "2014");
      assertError(await mine("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference }), 404, "2014");
      assertError(await mine("POST", "/api/v1/paymentlinks/update", { paymentLinkReference: reference, status: "Disabled" }), 404, "2014");
      for (const query of ["", "?search=a", "?status=Active", "?type=PayByLink"]) {
        const list = await mine("GET", `/api/v1/paymentlinks${query}`);
        assertOk(list);
        assert.deepEqual([list.body.totalCount, list.body.data.length], [0, 0], `list${query}`);
      }
      assert.equal((await sessionStatus({ ...server, api: mine }, reference)).body.status, "New", "the session stands");
    });
  });
}
