// The shopper's receipt for a charge of a saved card, through a real SMTP conversation: sent when
// the payment that saved the card knew the shopper's e-mail, in that payment's language, naming the
// merchant's reference, the amount and the masked card; none for a refused charge or a card saved
// without an e-mail.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { sql } from "kysely";
import { smtpTransport } from "../../src/mail/transport.ts";
import { MailWorker } from "../../src/mail/worker.ts";
import { formatMoney } from "../../src/web/i18n.ts";
import { charge, NO_BALANCE_CARD, saveCard, saveCardOf } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type Mailbox, startMailbox } from "../support/mailbox.ts";

const silent = { info() {}, warn() {}, error() {} };

for (const backend of testBackends()) {
  describe(`receipts for saved-card charges (${backend.name})`, () => {
    let server: TestServer;
    let mailbox: Mailbox;
    let worker: MailWorker;
    before(async () => {
      server = await startTestServer({ backend });
      mailbox = await startMailbox();
      worker = new MailWorker({
        db: server.db,
        transport: smtpTransport(mailbox.url, "Paylink <no-reply@paylink.test>"),
        keyring: testKeyring(),
        logKept: false,
        publicBaseUrl: server.baseUrl,
        logger: silent,
        now: () => new Date(),
        alertIntervalMs: 3_600_000,
      });
    });
    after(async () => {
      await mailbox?.close();
      await server?.close();
    });
    beforeEach(() => {
      mailbox.messages.length = 0;
    });
    async function drain() {
      while ((await worker.runOnce()) > 0);
    }
    async function receiptsOf(checkoutReference: string) {
      return (await sql<{ kind: string }>`SELECT kind FROM mail_outbox WHERE checkout_reference = ${checkoutReference}`.execute(server.db))
        .rows;
    }

    for (const lang of ["is", "en"] as const) {
      test(`an approved charge sends one receipt to the shopper, in the saving payment's language (${lang})`, async () => {
        const email = `anna-${lang}@example.com`;
        const { token } = await saveCardOf(server, { email, name: "Anna Jónsdóttir", culture: lang });
        await drain();
        mailbox.messages.length = 0;
        const charged = await charge(server, token, { amount: 129900, reference: `renewal-${lang}` });
        assert.equal(charged.body.resultCode, "Authorised", JSON.stringify(charged.body));
        await drain();
        const [receipt] = await mailbox.waitFor(1);
        assert.equal(mailbox.messages.length, 1, "exactly one message");
        assert.equal(receipt!.to, email);
        assert.equal(receipt!.language, lang);
        assert.equal(receipt!.subject, lang === "is" ? "Kvittun frá Test merchant" : "Your receipt from Test merchant");
        for (const body of [receipt!.text, receipt!.html]) {
          assert.ok(body.includes(formatMoney(129900, "ISK", lang)), "amount");
          assert.ok(body.includes("Visa •••• 1111"), "masked card");
          assert.ok(body.includes(`renewal-${lang}`), "the merchant's reference");
          assert.ok(body.includes(charged.body.checkoutReference), "the payment's reference");
        }
        assert.ok(!receipt!.text.includes(token), "never the token");
        assert.deepEqual(await receiptsOf(charged.body.checkoutReference), [{ kind: "receipt" }]);
      });
    }

    test("a refused charge and a card saved without an e-mail send no receipt", async () => {
      const { token } = await saveCardOf(server, { email: "broke@example.com", name: "Jón" }, NO_BALANCE_CARD);
      const refused = await charge(server, token, { reference: "renewal-refused" });
      assert.equal(refused.body.resultCode, "Refused");
      assert.deepEqual(await receiptsOf(refused.body.checkoutReference), []);
      const anonymous = await charge(server, await saveCard(server), { reference: "renewal-anonymous" });
      assert.equal(anonymous.body.resultCode, "Authorised");
      assert.deepEqual(await receiptsOf(anonymous.body.checkoutReference), []);
    });
  });
}
