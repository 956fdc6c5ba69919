// A session shopper's saved cards (docs/api.md#hosted-checkout-sessions), on every backend: a card
// saved by a session with a merchantShopperReference is offered first on the next session of the
// same merchant and shopper, and paying with it is the session's one payment (Authorization webhook
// with the order id, Completed, the return URL). Nobody else's card is offered or charged: another
// merchant's, another shopper's, a disabled or an expired one; a token posted by hand is refused.
// Many tabs paying with the saved card at once charge it once, also on two instances.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadCheckoutLink } from "../../src/db/checkout-repository.ts";
import { reserveSale } from "../../src/db/reservations-repository.ts";
import { cartDigest } from "../../src/domain/links/cart.ts";
import type { TokenChargeRequest } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { reconcileStalePayments } from "../../src/services/reconcile-payments.ts";
import { testBackends } from "../support/databases.ts";
import { as } from "../support/fixtures.ts";
import { type MerchantFixture, startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { createSession, paySession, postSessionForm, sessionStatus } from "../support/sessions.ts";
import { CARDS, getPage, hiddenInputs, textOf } from "../support/shopper.ts";

/** The sandbox with a little latency, counting the approved token charges. */
class CountingSandbox extends SandboxProcessor {
  tokenApprovals = 0;
  constructor() {
    super({ latencyMs: 20 });
  }
  override async chargeToken(request: TokenChargeRequest) {
    const result = await super.chargeToken(request);
    if (result.approved) this.tokenApprovals++;
    return result;
  }
}

/** The saved-card choices the page offers: radio values, "" for a new card. */
function savedChoices(html: string): string[] {
  // An empty value is written as a bare `value` attribute.
  return [...html.matchAll(/<input\b[^>]*name="savedCard"[^>]*>/g)].map((tag) => /value="([^"]*)"/.exec(tag[0])?.[1] ?? "");
}

for (const backend of testBackends()) {
  describe(`a session shopper's saved cards (${backend.name})`, () => {
    let server: TestServer;
    let second: TestServer | undefined;
    const processors = [new CountingSandbox(), new CountingSandbox()];
    let other: MerchantFixture;
    let savedToken: string;
    const charged = () => processors[0]!.tokenApprovals + processors[1]!.tokenApprovals;

    before(async () => {
      server = await startTestServer({ backend, processor: processors[0] });
      if (backend.name === "postgres") second = await startSecondInstance(server, { processor: processors[1] });
      other = await server.addMerchant();
      await addWebhookEndpoint(server);
    });
    after(async () => {
      await second?.close();
      await server.close();
    });

    const session = (overrides: Record<string, unknown> = {}, shop: Pick<MerchantFixture, "terminalIdentifier" | "apiKey"> = server) =>
      createSession(
        {
          baseUrl: server.baseUrl,
          terminalIdentifier: shop.terminalIdentifier,
          api: (method, path, body, headers) => server.api(method, path, body, as(shop, headers)),
        },
        overrides,
      );
    const submissionsOf = (checkoutReference: string) =>
      server.db.selectFrom("submissions").selectAll().where("link_reference", "=", checkoutReference).execute();

    it("session A saves the card under the shopper; session B offers it and pays with it", async () => {
      const a = await session({ reference: "order-A", recurringProcessingModel: "CardOnFile", merchantShopperReference: "shopper-42" });
      const first = await getPage(server.baseUrl, `/checkout/${a.checkoutReference}`);
      assert.deepEqual(savedChoices(first.html), [], "no card saved yet");
      const paidA = await paySession(server.baseUrl, a.checkoutReference, CARDS.visa);
      assert.equal(paidA.status, 303);
      const [savedBy] = await submissionsOf(a.checkoutReference);
      assert.match(savedBy?.token ?? "", /^[0-9A-Z]{16}$/);
      savedToken = savedBy!.token!;

      const b = await session({ reference: "order-B", merchantShopperReference: "shopper-42" });
      const page = await getPage(server.baseUrl, `/checkout/${b.checkoutReference}`);
      assert.equal(page.status, 200);
      assert.deepEqual(savedChoices(page.html), [savedToken, ""], "the saved card first, then a new card");
      const text = textOf(page.html);
      assert.match(text, /Pay with a saved card/);
      assert.match(text, /Visa ending in 1111, expires \d{2}\/\d{4}/);
      assert.match(text, /Use a new card/);
      assert.doesNotMatch(page.html, new RegExp(CARDS.visa), "never the full number");
      assert.match(page.html, /<input[^>]*name="savedCard"[^>]*value="[0-9A-Z]{16}"[^>]*checked/, "the saved card is chosen");

      const before = charged();
      const paid = await postSessionForm(server.baseUrl, b.checkoutReference, { ...hiddenInputs(page.html), savedCard: savedToken });
      assert.equal(paid.status, 303, paid.html);
      assert.equal(new URL(paid.location!).searchParams.get("checkoutReference"), b.checkoutReference);
      assert.equal(charged(), before + 1, "the token charged once");
      const status = await sessionStatus(server, b.checkoutReference);
      assert.equal(status.body.status, "Completed");
      assert.match(status.body.payfacReference, /^[0-9A-Z]{16}$/);
      const [payment] = await submissionsOf(b.checkoutReference);
      assert.deepEqual(
        [payment?.state, payment?.paid_with_token, payment?.card_last4, payment?.payfac_reference, payment?.token],
        ["approved", savedToken, "1111", status.body.payfacReference, null],
      );
      const messages = (await outboxMessages(server)).filter((m) => m.payload.checkoutReference === b.checkoutReference);
      assert.deepEqual(
        messages.map((m) => [m.eventType, m.payload.success, m.payload.merchantReference, m.payload.payfacReference]),
        [["Authorization", "true", "order-B", status.body.payfacReference]],
      );
      // Paid: the session takes no second payment, with the card or without.
      const again = await postSessionForm(server.baseUrl, b.checkoutReference, { ...hiddenInputs(page.html), savedCard: savedToken });
      assert.equal(again.status, 410);
      assert.equal(charged(), before + 1);
    });

    it("another merchant's session with the same shopper reference offers nothing and refuses the token", async () => {
      const c = await session({ reference: "order-C", merchantShopperReference: "shopper-42" }, other);
      const page = await getPage(server.baseUrl, `/checkout/${c.checkoutReference}`);
      assert.equal(page.status, 200);
      assert.deepEqual(savedChoices(page.html), []);
      const before = charged();
      const tampered = await postSessionForm(server.baseUrl, c.checkoutReference, { ...hiddenInputs(page.html), savedCard: savedToken });
      assert.equal(tampered.status, 400);
      assert.match(textOf(tampered.html), /That saved card cannot be used here/);
      assert.equal(charged(), before, "nothing charged");
      assert.deepEqual(await submissionsOf(c.checkoutReference), [], "nothing recorded");
      const status = await server.api("GET", `/api/v1/hostedcheckout/status/${c.checkoutReference}`, undefined, as(other));
      assert.equal(status.body.status, "New", "not paid");
    });

    it("another shopper of the same merchant, and a session without a shopper, are refused the token", async () => {
      for (const overrides of [{ reference: "order-D", merchantShopperReference: "shopper-43" }, { reference: "order-E" }]) {
        const d = await session(overrides);
        const page = await getPage(server.baseUrl, `/checkout/${d.checkoutReference}`);
        assert.deepEqual(savedChoices(page.html), []);
        const before = charged();
        const tampered = await postSessionForm(server.baseUrl, d.checkoutReference, { ...hiddenInputs(page.html), savedCard: savedToken });
        assert.equal(tampered.status, 400);
        assert.equal(charged(), before);
        assert.deepEqual(await submissionsOf(d.checkoutReference), []);
      }
    });

    it("a new card instead: the card fields are read and the card is charged as typed", async () => {
      const f = await session({ reference: "order-F", merchantShopperReference: "shopper-42" });
      const page = await getPage(server.baseUrl, `/checkout/${f.checkoutReference}`);
      const missing = await postSessionForm(server.baseUrl, f.checkoutReference, { ...hiddenInputs(page.html), savedCard: "" });
      assert.equal(missing.status, 422, "a new card needs its number");
      assert.deepEqual(savedChoices(missing.html), [savedToken, ""], "the choices come back");
      assert.match(missing.html, /<input[^>]*name="savedCard" value checked/, "with a new card still chosen");
      const paid = await postSessionForm(server.baseUrl, f.checkoutReference, {
        ...hiddenInputs(missing.html),
        savedCard: "",
        cardNumber: CARDS.mastercard,
        cardExpiry: "12/40",
        cardCvc: "737",
      });
      assert.equal(paid.status, 303, paid.html);
      const [payment] = await submissionsOf(f.checkoutReference);
      assert.deepEqual([payment?.card_last4, payment?.paid_with_token], ["4444", null]);
    });

    it("an expired or a disabled card is not offered, and refused when posted", async () => {
      const expiring = await session({
        reference: "order-G",
        recurringProcessingModel: "CardOnFile",
        merchantShopperReference: "shopper-50",
      });
      assert.equal((await paySession(server.baseUrl, expiring.checkoutReference, CARDS.mastercard)).status, 303);
      const [saved] = await submissionsOf(expiring.checkoutReference);
      const token = saved!.token!;
      const h = await session({ reference: "order-H", merchantShopperReference: "shopper-50" });
      assert.deepEqual(savedChoices((await getPage(server.baseUrl, `/checkout/${h.checkoutReference}`)).html), [token, ""]);

      await server.db.updateTable("submissions").set({ card_expiry: "01/2020" }).where("id", "=", saved!.id).execute();
      const expiredPage = await getPage(server.baseUrl, `/checkout/${h.checkoutReference}`);
      assert.deepEqual(savedChoices(expiredPage.html), [], "an expired card is not offered");
      const before = charged();
      const refused = await postSessionForm(server.baseUrl, h.checkoutReference, { ...hiddenInputs(expiredPage.html), savedCard: token });
      assert.equal(refused.status, 400);
      assert.equal(charged(), before);

      const disabled = await server.api("POST", "/api/v1/tokens/disable", { tokenValue: savedToken });
      assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
      const i = await session({ reference: "order-I", merchantShopperReference: "shopper-42" });
      const page = await getPage(server.baseUrl, `/checkout/${i.checkoutReference}`);
      assert.deepEqual(savedChoices(page.html), [], "a disabled card is not offered");
      const refusedDisabled = await postSessionForm(server.baseUrl, i.checkoutReference, {
        ...hiddenInputs(page.html),
        savedCard: savedToken,
      });
      assert.equal(refusedDisabled.status, 400);
      assert.equal(charged(), before);
      assert.deepEqual(await submissionsOf(i.checkoutReference), []);

      // A disable that lands after the page read the form: the reservation itself refuses the token.
      const link = (await loadCheckoutLink(server.db, i.checkoutReference, { kind: "session" }))!;
      const reservation = await reserveSale(server.db, {
        linkReference: i.checkoutReference,
        attemptKey: null,
        answers: [],
        card: { brand: "VI", masked: "411111******1111", last4: "1111", expiry: "12/2040" },
        now: new Date(),
        shownPrice: { amount: link.terms.amount, currency: link.terms.currency, cart: cartDigest(link.terms.items) },
        paidWithToken: savedToken,
      });
      assert.equal(reservation.kind, "unavailable");
      assert.deepEqual(await submissionsOf(i.checkoutReference), []);
    });

    it("a saved-card attempt whose answer never came is reversed as a token charge, and the session can be paid", async () => {
      const saver = await session({ reference: "order-L", recurringProcessingModel: "CardOnFile", merchantShopperReference: "shopper-70" });
      assert.equal((await paySession(server.baseUrl, saver.checkoutReference)).status, 303);
      const [saved] = await submissionsOf(saver.checkoutReference);
      const token = saved!.token!;
      const { checkoutReference } = await session({ reference: "order-M", merchantShopperReference: "shopper-70" });
      const link = (await loadCheckoutLink(server.db, checkoutReference, { kind: "session" }))!;
      // A crash between the reservation and the processor's answer: the attempt stays pending.
      const reservation = await reserveSale(server.db, {
        linkReference: checkoutReference,
        attemptKey: null,
        answers: [],
        card: { brand: saved!.card_brand!, masked: saved!.card_masked!, last4: saved!.card_last4!, expiry: saved!.card_expiry! },
        now: new Date(),
        shownPrice: { amount: link.terms.amount, currency: link.terms.currency, cart: cartDigest(link.terms.items) },
        paidWithToken: token,
      });
      assert.equal(reservation.kind, "reserved");
      const attempt = reservation.kind === "reserved" ? reservation.checkoutReference : "";
      await server.db
        .updateTable("submissions")
        .set({ created_at: new Date(Date.now() - 3_600_000) })
        .where("id", "=", attempt)
        .execute();

      const reversals: string[] = [];
      const sandbox = new SandboxProcessor();
      const tokenProcessor = Object.assign(Object.create(sandbox) as SandboxProcessor, {
        reverseCharge: async (reference: string) => void reversals.push(`charge:${reference}`),
      });
      const processor = Object.assign(Object.create(sandbox) as SandboxProcessor, {
        reverseAttempt: async (reference: string) => void reversals.push(`attempt:${reference}`),
      });
      const log = { warn() {}, error() {}, info() {} };
      assert.equal(await reconcileStalePayments({ db: server.db, processor, tokenProcessor, log }, checkoutReference), 1);
      assert.deepEqual(reversals, [`charge:${attempt}`], "reversed as a token charge, not as a card authorisation");
      const [abandoned] = await submissionsOf(checkoutReference);
      assert.equal(abandoned?.state, "abandoned");

      const page = await getPage(server.baseUrl, `/checkout/${checkoutReference}`);
      const paid = await postSessionForm(server.baseUrl, checkoutReference, { ...hiddenInputs(page.html), savedCard: token });
      assert.equal(paid.status, 303, "the slot was released");
    });

    it(`8 tabs pay with the saved card at once: one charge${backend.name === "postgres" ? " (two app instances)" : ""}`, async () => {
      const saver = await session({ reference: "order-J", recurringProcessingModel: "CardOnFile", merchantShopperReference: "shopper-60" });
      assert.equal((await paySession(server.baseUrl, saver.checkoutReference)).status, 303);
      const [saved] = await submissionsOf(saver.checkoutReference);
      const { checkoutReference } = await session({ reference: "order-K", merchantShopperReference: "shopper-60" });
      const instances = second ? [server, second] : [server];
      const pages = await Promise.all(
        Array.from({ length: 8 }, (_, i) => getPage(instances[i % instances.length]!.baseUrl, `/checkout/${checkoutReference}`)),
      );
      const before = charged();
      const responses = await Promise.all(
        pages.map((page, i) =>
          postSessionForm(instances[(i + 1) % instances.length]!.baseUrl, checkoutReference, {
            ...hiddenInputs(page.html),
            savedCard: saved!.token!,
          }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 303).length, 1, statuses.join(","));
      assert.ok(
        statuses.every((s) => s === 303 || s === 202 || s === 410),
        statuses.join(","),
      );
      assert.equal(charged(), before + 1, "the card charged once");
      const status = await sessionStatus(server, checkoutReference);
      assert.equal(status.body.status, "Completed");
      const authorizations = (await outboxMessages(server)).filter((m) => m.payload.checkoutReference === checkoutReference);
      assert.deepEqual(
        authorizations.map((m) => [m.eventType, m.payload.success]),
        [["Authorization", "true"]],
      );
    });
  });
}
