// Chargebacks and disputes on every backend (docs/processors.md#disputes): each step a processor
// reports is kept once, the latest step by the processor's time decides where the dispute stands
// whatever order the steps arrive in, a Dispute webhook goes only to endpoints that opted in and
// only for a step that is the dispute's latest, and the merchant sees the dispute in
// GET /payments/{ref} and in the portal. The steps are handed to the use case as an adapter's
// parseNotification hands them over; each adapter's own parsing is proved in test/processors.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { DisputeNotification, DisputeStatus } from "../../src/payments/hosted.ts";
import { settleNotifiedDispute } from "../../src/services/notified-dispute.ts";
import { sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { assertOk } from "../support/fixtures.ts";
import { addMerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";

const silent = { info() {}, warn() {}, error() {} };

for (const backend of testBackends()) {
  describe(`disputes (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    /** An endpoint as the live gateway's plugins have it (no Dispute events), and one that opted in. */
    let plainEndpoint: string;
    let disputesEndpoint: string;

    before(async () => {
      server = await startTestServer({ backend, allowPrivateTargets: true });
      portal = await signedIn(server);
      const admin = (payload: object) =>
        server.app.inject({
          method: "POST",
          url: `/admin/v1/merchants/${server.merchantId}/webhooks`,
          headers: { authorization: `Bearer ${server.adminToken}` },
          payload,
        });
      const plain = await admin({ url: "http://127.0.0.1:9/plain" });
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(plain.json().disputeEvents, false, "off unless asked for");
      plainEndpoint = plain.json().webhookId;
      const opted = await admin({ url: "http://127.0.0.1:9/disputes", disputeEvents: true });
      assert.equal(opted.statusCode, 200, opted.body);
      assert.equal(opted.json().disputeEvents, true);
      disputesEndpoint = opted.json().webhookId;
    });
    after(() => server?.close());

    const service = () => ({ db: server.db, now: () => new Date(), log: silent });
    let steps = 0;
    const step = (
      payfacReference: string,
      disputeReference: string,
      status: DisputeStatus,
      occurredAt: string,
      overrides: Partial<DisputeNotification["dispute"]> = {},
    ): DisputeNotification => ({
      dispute: {
        disputeReference,
        eventReference: `evt_${++steps}`,
        payfacReference,
        status,
        processorEvent: status === "Open" ? "NOTIFICATION_OF_CHARGEBACK" : status === "Lost" ? "CHARGEBACK" : "CHARGEBACK_REVERSED",
        amount: { value: 48900, currency: "ISK" },
        reason: "Fraud",
        occurredAt: new Date(occurredAt),
        ...overrides,
      },
    });
    const disputeDeliveries = async (disputeReference: string) =>
      (
        await server.db
          .selectFrom("webhook_deliveries")
          .select(["endpoint_id", "payload"])
          .where("merchant_id", "=", server.merchantId)
          .where("event_type", "=", "Dispute")
          .orderBy("created_at")
          .orderBy("id")
          .execute()
      )
        .map((row) => ({
          endpoint: row.endpoint_id,
          body: (typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload) as any,
        }))
        .filter((delivery) => delivery.body.payfacReference === disputeReference);
    const disputesOfPayment = async (payfacReference: string) => {
      const response = await server.api("GET", `/api/v1/payments/${payfacReference}`);
      assertOk(response);
      return response.body.payment.disputes as Array<Record<string, unknown>>;
    };

    it("a new dispute is recorded once, shown on the payment, and sent only to the endpoint that opted in", async () => {
      const { payfacReference, linkReference } = await sellLink(server, 48900);
      assert.deepEqual(await disputesOfPayment(payfacReference), [], "no dispute yet");
      const opened = step(payfacReference, "DSP-OPEN-1", "Open", "2026-11-01T10:00:00Z");
      for (let i = 0; i < 3; i++) assert.equal(await settleNotifiedDispute(service(), server.terminalIdentifier, opened), "recorded");

      const deliveries = await disputeDeliveries("DSP-OPEN-1");
      assert.equal(deliveries.length, 1, "one Dispute for one step, however often it is sent");
      assert.equal(deliveries[0]!.endpoint, disputesEndpoint, "never to the endpoint that did not opt in");
      assert.notEqual(deliveries[0]!.endpoint, plainEndpoint);
      const body = deliveries[0]!.body;
      assert.equal(body.merchantReference, linkReference);
      assert.equal(body.amount, "48900");
      assert.equal(body.currency, "ISK");
      assert.equal(body.success, "true");
      assert.equal(body.reason, "Fraud");
      assert.deepEqual(
        {
          eventType: body.additionalData.eventType,
          disputeStatus: body.additionalData.disputeStatus,
          processorEvent: body.additionalData.processorEvent,
          originalPayfacReference: body.additionalData.originalPayfacReference,
        },
        {
          eventType: "Dispute",
          disputeStatus: "Open",
          processorEvent: "NOTIFICATION_OF_CHARGEBACK",
          originalPayfacReference: payfacReference,
        },
      );

      assert.deepEqual(await disputesOfPayment(payfacReference), [
        {
          disputeReference: "DSP-OPEN-1",
          status: "Open",
          processorEvent: "NOTIFICATION_OF_CHARGEBACK",
          amount: 48900,
          currency: "ISK",
          reason: "Fraud",
          openedAt: "2026-11-01T10:00:00.000Z",
          updatedAt: "2026-11-01T10:00:00.000Z",
        },
      ]);
    });

    it("steps out of order: the latest by the processor's time decides, and a late older step sends nothing", async () => {
      const { payfacReference } = await sellLink(server, 48900);
      const settle = (notification: DisputeNotification) => settleNotifiedDispute(service(), server.terminalIdentifier, notification);
      // The chargeback (lost) arrives before the notice that opened it.
      await settle(step(payfacReference, "DSP-ORDER-1", "Lost", "2026-11-10T09:00:00Z"));
      await settle(step(payfacReference, "DSP-ORDER-1", "Open", "2026-11-02T09:00:00Z"));
      let [dispute] = await disputesOfPayment(payfacReference);
      assert.equal(dispute!.status, "Lost", "the older step arriving late does not reopen it");
      assert.equal(dispute!.openedAt, "2026-11-02T09:00:00.000Z", "opened when its first step happened");
      assert.equal(dispute!.updatedAt, "2026-11-10T09:00:00.000Z");
      assert.deepEqual(
        (await disputeDeliveries("DSP-ORDER-1")).map((d) => d.body.additionalData.disputeStatus),
        ["Lost"],
        "the merchant's last word is where the dispute stands",
      );
      // Then the merchant's defence wins it back.
      await settle(step(payfacReference, "DSP-ORDER-1", "Won", "2026-12-01T09:00:00Z", { amount: null, reason: "" }));
      [dispute] = await disputesOfPayment(payfacReference);
      assert.equal(dispute!.status, "Won");
      assert.equal(dispute!.amount, 48900, "a step that names no amount keeps the disputed one");
      assert.equal(dispute!.reason, "Fraud", "and its reason");
      assert.deepEqual(
        (await disputeDeliveries("DSP-ORDER-1")).map((d) => d.body.additionalData.disputeStatus),
        ["Lost", "Won"],
      );
    });

    it("a dispute about no payment of this terminal changes nothing", async () => {
      const { payfacReference } = await sellLink(server, 48900);
      const other = await addMerchantFixture(server.db);
      const notification = step(payfacReference, "DSP-OTHER-1", "Open", "2026-11-03T09:00:00Z");
      assert.equal(await settleNotifiedDispute(service(), other.terminalIdentifier, notification), "not-ours");
      assert.equal(
        await settleNotifiedDispute(
          service(),
          server.terminalIdentifier,
          step("NOSUCHPAYMENT000", "DSP-OTHER-2", "Open", "2026-11-03T09:00:00Z"),
        ),
        "not-ours",
      );
      assert.deepEqual(await disputesOfPayment(payfacReference), []);
      assert.equal((await disputeDeliveries("DSP-OTHER-1")).length, 0);
    });

    it("the portal marks the payment Disputed and shows the dispute on its page", async () => {
      const { payfacReference } = await sellLink(server, 48900);
      await settleNotifiedDispute(
        service(),
        server.terminalIdentifier,
        step(payfacReference, "DSP-PORTAL-1", "Open", "2026-11-04T09:00:00Z"),
      );
      const checkoutReference = (
        await server.db.selectFrom("submissions").select("id").where("payfac_reference", "=", payfacReference).executeTakeFirstOrThrow()
      ).id;
      const list = await portal.get("/portal/payments");
      const row = list.html.split("<tr").find((html) => html.includes(checkoutReference));
      assert.ok(row, "the payment is listed");
      assert.match(row, /Disputed/);
      const page = await portal.get(`/portal/payments/${checkoutReference}`);
      assert.match(page.html, /data-dispute="DSP-PORTAL-1"/);
      assert.match(page.text, /Disputes/);
      assert.match(page.text, /Open/);
      assert.match(page.text, /NOTIFICATION_OF_CHARGEBACK/);
    });

    it("the opt-in is changed with the admin API and in the portal", async () => {
      const change = await server.app.inject({
        method: "POST",
        url: `/admin/v1/merchants/${server.merchantId}/webhooks/${plainEndpoint}`,
        headers: { authorization: `Bearer ${server.adminToken}` },
        payload: { disputeEvents: true },
      });
      assert.equal(change.statusCode, 200, change.body);
      assert.equal(change.json().disputeEvents, true);
      const page = await portal.get(`/portal/developers/webhooks/${plainEndpoint}`);
      assert.match(page.html, /name="disputeEvents"[^>]*checked/);
      // Saving the form without the box ticked turns it off again.
      const saved = await portal.post(`/portal/developers/webhooks/${plainEndpoint}`, { url: "http://127.0.0.1:9/plain" }, page);
      assert.equal(saved.status, 303, saved.text.slice(0, 300));
      const row = await server.db
        .selectFrom("webhook_endpoints")
        .select("dispute_events")
        .where("id", "=", plainEndpoint)
        .executeTakeFirstOrThrow();
      assert.equal(row.dispute_events, false);
    });
  });
}
