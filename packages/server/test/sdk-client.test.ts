// The published SDK client (paylink-sdk, as a merchant installs it) against the real server on
// every test database backend: the two packages must agree on the wire format.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CreatePaymentLinkRequest, type Item, PaylinkApiError, PaylinkClient } from "paylink-sdk";
import { testBackends } from "./support/databases.ts";
import { startTestServer, type TestServer } from "./support/harness.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const backend of testBackends()) {
  describe(`SDK client against the server (${backend.name})`, () => {
    let server: TestServer;
    let paylink: PaylinkClient;
    /** Every URL the client requested, through the `fetch` option. */
    const requestedUrls: string[] = [];

    before(async () => {
      server = await startTestServer({ backend });
      paylink = new PaylinkClient({
        baseUrl: server.baseUrl,
        apiKey: server.apiKey,
        fetch: (input, init) => {
          requestedUrls.push(String(input));
          return fetch(input, init);
        },
      });
    });
    after(() => server.close());

    const items: Item[] = [
      { name: "Lopapeysa", quantity: 1, unitPrice: 39900, amountWithoutDiscount: 39900, amount: 39900 },
      { name: "Húfa", quantity: 2, unitPrice: 5000, amountWithoutDiscount: 10000, amount: 9000 },
    ];
    const payByLink = (): CreatePaymentLinkRequest => ({
      type: "PayByLink",
      terminalIdentifier: server.terminalIdentifier,
      amount: 48900,
      currency: "ISK",
      items,
      culture: "en",
      description: "Order 1001",
      returnUrl: "https://shop.example.com/thanks",
      shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
    });

    it("creates a PayByLink link and reads it back", async () => {
      const created = await paylink.createPaymentLink(payByLink());
      assert.match(created.responseIdentifier, UUID);
      assert.equal(created.url, `${server.baseUrl}/pay/${created.paymentLinkReference}`);

      const link = await paylink.getPaymentLink(created.paymentLinkReference);
      assert.equal(link.paymentLinkReference, created.paymentLinkReference);
      assert.equal(link.type, "PayByLink");
      assert.equal(link.status, "Active");
      assert.equal(link.amount, 48900);
      assert.equal(link.currency, "ISK");
      assert.deepEqual(link.items, items);
      assert.equal(link.culture, "en");
      assert.equal(link.description, "Order 1001");
      assert.equal(link.returnUrl, "https://shop.example.com/thanks");
      assert.equal(link.recurringProcessingModel, null);
      assert.equal(link.maxSalesCount, null);
      assert.equal(link.validUntil, null);
      assert.equal(link.salesCount, 0);
      assert.deepEqual(
        link.shopperInfo.map(({ field, requirementType }) => ({ field, requirementType })),
        [{ field: "EmailAddress", requirementType: "Required" }],
      );
      assert.deepEqual(link.submissions, []);
    });

    it("creates a TokenizeByLink link", async () => {
      const created = await paylink.createPaymentLink({
        type: "TokenizeByLink",
        terminalIdentifier: server.terminalIdentifier,
        amount: 0,
        currency: "ISK",
        recurringProcessingModel: "Subscription",
      });
      const link = await paylink.getPaymentLink(created.paymentLinkReference);
      assert.equal(link.type, "TokenizeByLink");
      assert.equal(link.amount, 0);
      assert.deepEqual(link.items, []);
      assert.equal(link.recurringProcessingModel, "Subscription");
      assert.equal(link.maxSalesCount, 1);
      assert.equal(link.status, "Active");
    });

    it("replays a create sent again with the same Idempotency-Key", async () => {
      const first = await paylink.createPaymentLink(payByLink(), { idempotencyKey: "order-1001-create" });
      const again = await paylink.createPaymentLink(payByLink(), { idempotencyKey: "order-1001-create" });
      assert.equal(again.paymentLinkReference, first.paymentLinkReference);
    });

    it("updates a link as read (GET → change → POST)", async () => {
      const { paymentLinkReference } = await paylink.createPaymentLink(payByLink());
      const link = await paylink.getPaymentLink(paymentLinkReference);
      const validUntil = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();

      const result = await paylink.updatePaymentLink({
        ...link,
        description: "Order 1001, gift wrapped",
        maxSalesCount: 3,
        validUntil,
        culture: "is",
      });
      assert.match(result.responseIdentifier, UUID);

      const updated = await paylink.getPaymentLink(paymentLinkReference);
      assert.equal(updated.description, "Order 1001, gift wrapped");
      assert.equal(updated.maxSalesCount, 3);
      assert.equal(Date.parse(updated.validUntil ?? ""), Date.parse(validUntil));
      assert.equal(updated.culture, "is");
      assert.deepEqual(updated.items, items);
    });

    it("lists links and iterates across pages", async () => {
      const tag = `batch-${Date.now()}`;
      const references: string[] = [];
      for (let index = 0; index < 5; index++) {
        const created = await paylink.createPaymentLink({ ...payByLink(), description: `${tag} #${index}` });
        references.push(created.paymentLinkReference);
      }
      const newestFirst = [...references].reverse();

      const firstPage = await paylink.listPaymentLinks({ search: tag, pageSize: 2 });
      assert.equal(firstPage.totalCount, 5);
      assert.deepEqual(
        firstPage.data.map((entry) => entry.paymentLinkReference),
        newestFirst.slice(0, 2),
      );
      const entry = firstPage.data[0];
      assert.ok(entry);
      assert.deepEqual(Object.keys(entry).sort(), [
        "amount",
        "createdAt",
        "currency",
        "description",
        "maxSalesCount",
        "paymentLinkReference",
        "salesCount",
        "status",
        "type",
        "url",
        "validUntil",
        "visitCount",
      ]);

      requestedUrls.length = 0;
      const iterated: string[] = [];
      for await (const link of paylink.iteratePaymentLinks({ search: tag, pageSize: 2 })) {
        iterated.push(link.paymentLinkReference);
      }
      assert.deepEqual(iterated, newestFirst);
      assert.deepEqual(
        requestedUrls.map((url) => new URL(url).searchParams.get("page")),
        ["0", "1", "2"],
      );
    });

    it("disables a link, idempotently", async () => {
      const { paymentLinkReference } = await paylink.createPaymentLink(payByLink());
      await paylink.disablePaymentLink(paymentLinkReference);
      assert.equal((await paylink.getPaymentLink(paymentLinkReference)).status, "Disabled");
      await paylink.disablePaymentLink(paymentLinkReference);
      assert.equal((await paylink.getPaymentLink(paymentLinkReference)).status, "Disabled");

      const disabled = await paylink.listPaymentLinks({ status: "Disabled" });
      assert.ok(disabled.data.some((entry) => entry.paymentLinkReference === paymentLinkReference));
    });

    it("throws a typed PaylinkApiError for a validation failure", async () => {
      const error = await paylink.createPaymentLink({ ...payByLink(), amount: 150, items: [] }).catch((caught: unknown) => caught);
      assert.ok(error instanceof PaylinkApiError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.errorCode, "2026");
      assert.match(error.errorMessage ?? "", /150/);
      assert.match(error.responseIdentifier ?? "", UUID);
    });

    it("throws PaylinkApiError for an unknown link and an unknown API key", async () => {
      await assert.rejects(paylink.getPaymentLink("doesNotExist123"), { name: "PaylinkApiError", status: 404, errorCode: "2014" });
      const stranger = new PaylinkClient({ baseUrl: server.baseUrl, apiKey: "plk_not_a_real_key" });
      await assert.rejects(stranger.listPaymentLinks(), { name: "PaylinkApiError", status: 401, errorCode: "3001" });
    });

    it("cannot see another merchant's link", async () => {
      const other = await server.addMerchant();
      const otherClient = new PaylinkClient({ baseUrl: server.baseUrl, apiKey: other.apiKey });
      const { paymentLinkReference } = await paylink.createPaymentLink(payByLink());
      await assert.rejects(otherClient.getPaymentLink(paymentLinkReference), { status: 404, errorCode: "2014" });
      await assert.rejects(otherClient.disablePaymentLink(paymentLinkReference), { status: 404, errorCode: "2014" });
    });
  });
}
