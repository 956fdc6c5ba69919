// Capture and cancel from the portal's payment page over real HTTP (docs/portal.md#payments): a
// session paid with isManualCapture shows what is captured and the Capture and Cancel forms, which
// go through the API's own use cases (the same reservation, the same 2019, the same webhooks).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { paidSession, readPayment } from "../support/capture.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";

for (const backend of testBackends()) {
  describe(`capture in the portal (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    before(async () => {
      server = await startTestServer({ backend });
      await addWebhookEndpoint(server);
      portal = await signedIn(server);
    });
    after(() => server.close());

    const pagePath = async (checkoutReference: string) => {
      const submission = await server.db
        .selectFrom("submissions")
        .select("id")
        .where("link_reference", "=", checkoutReference)
        .where("state", "=", "approved")
        .executeTakeFirstOrThrow();
      return `/portal/payments/${submission.id}`;
    };
    const eventsOf = async (payfacReference: string, eventType: string) =>
      (await outboxMessages(server)).filter(
        (m) => m.eventType === eventType && m.payload.additionalData.originalPayfacReference === payfacReference,
      );

    it("capture part, too much is refused, capture the rest: Capture webhooks; then no capture form", async () => {
      const { checkoutReference, payfacReference } = await paidSession(server, { reference: "WC-7001", isManualCapture: true });
      const path = await pagePath(checkoutReference);
      let page = await portal.get(path);
      assert.equal(page.status, 200);
      assert.match(page.text, /Authorised, can be captured/);
      assert.match(page.text, /Captured ISK 0 of ISK 4,890 authorised/);
      assert.match(page.text, /Amount to capture \(at most ISK 4,890\)/);
      assert.match(page.html, /action="[^"]*\/capture"/);
      assert.doesNotMatch(page.html, /action="[^"]*\/refund"/, "nothing captured: nothing to refund");

      const part = await portal.post(`${path}/capture`, { amount: "2000" }, page);
      assert.equal(part.status, 303, part.text.slice(0, 300));
      page = await portal.get(`${path}?captured=1`);
      assert.match(page.text, /The capture was sent/);
      assert.match(page.text, /Captured ISK 2,000 of ISK 4,890 authorised/);
      assert.match(page.text, /at most ISK 2,890/);

      const tooMuch = await portal.post(`${path}/capture`, { amount: "3000" }, page);
      assert.equal(tooMuch.status, 400);
      assert.match(tooMuch.text, /Amount ISK 3,000 is more than what is left to capture of payment [A-Z0-9]+: ISK 2,890\./);
      const unreadable = await portal.post(`${path}/capture`, { amount: "lots" }, page);
      assert.equal(unreadable.status, 400);

      assert.equal((await portal.post(`${path}/capture`, { amount: "2890" }, page)).status, 303);
      page = await portal.get(path);
      assert.match(page.text, /Captured in full/);
      assert.doesNotMatch(page.html, /action="[^"]*\/capture"/);
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 489000);
      assert.equal((await eventsOf(payfacReference, "Capture")).length, 2);
    });

    it("Cancel on an uncaptured payment releases it: one Refund webhook, no more capture", async () => {
      const { checkoutReference, payfacReference } = await paidSession(server, { reference: "WC-7002", isManualCapture: true });
      const path = await pagePath(checkoutReference);
      let page = await portal.get(path);
      assert.match(page.html, /pill warn">Authorised, not captured</);
      assert.doesNotMatch(page.html, /<form method="post" action="[^"]*\/reverse"/, "Cancel asks first");
      const question = await portal.get(`${path}/reverse`);
      assert.match(question.text, /Give back the rest of this payment\?/);
      assert.equal((await eventsOf(payfacReference, "Refund")).length, 0, "asking cancels nothing");
      const cancelled = await portal.post(`${path}/reverse`, {}, question);
      assert.equal(cancelled.status, 303);
      page = await portal.get(path);
      assert.match(page.text, /Released \(cancelled\)/);
      assert.match(page.html, /<span class="pill ">Cancelled<\/span>/, "a release is not called a refund");
      assert.doesNotMatch(page.html, /action="[^"]*\/capture"/);
      assert.equal((await eventsOf(payfacReference, "Refund")).length, 1);
      // Posted again (a stale page): refused by the rules, shown on the page.
      const again = await portal.post(`${path}/capture`, { amount: "100" }, page);
      assert.equal(again.status, 400);
      assert.match(again.text, /released/);
    });

    it("a capture without the form's CSRF token is refused and captures nothing", async () => {
      const { checkoutReference, payfacReference } = await paidSession(server, { reference: "WC-7003", isManualCapture: true });
      const path = await pagePath(checkoutReference);
      const forged = await portal.request("POST", `${path}/capture`, { amount: "1000" });
      assert.ok(forged.status >= 400 && forged.status < 500, `status ${forged.status}`);
      assert.equal((await readPayment(server, payfacReference)).capturedAmount, 0);
    });
  });
}
