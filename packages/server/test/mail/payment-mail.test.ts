// E-mail a payment causes, through a real SMTP conversation: the shopper's receipt in the
// checkout's language with items, amount and masked card; the refund notice to the same shopper;
// the opted-in user's "you got paid"; a mail server that is down delays the mail, never the payment.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { sql } from "kysely";
import { saveNotificationSettings } from "../../src/db/notification-settings-repository.ts";
import { smtpTransport } from "../../src/mail/transport.ts";
import { MailWorker } from "../../src/mail/worker.ts";
import { formatMoney } from "../../src/web/i18n.ts";
import { refund } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { getLink, ITEMS, ITEMS_TOTAL } from "../support/fixtures.ts";
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type Mailbox, startMailbox } from "../support/mailbox.ts";
import { addPortalUser } from "../support/portal.ts";
import { createSession, paySession } from "../support/sessions.ts";
import { cardFields, createLink, pay } from "../support/shopper.ts";

const silent = { info() {}, warn() {}, error() {} };
const SHOPPER = "shopper@example.com";

for (const backend of testBackends()) {
  describe(`mail from payments (${backend.name})`, () => {
    let server: TestServer;
    let mailbox: Mailbox;
    let clockOffsetMs = 0;
    let worker: MailWorker;
    before(async () => {
      server = await startTestServer({ backend });
      mailbox = await startMailbox();
      worker = mailWorker(mailbox.url);
    });
    after(async () => {
      await mailbox?.close();
      await server?.close();
    });
    beforeEach(() => {
      mailbox.messages.length = 0;
      clockOffsetMs = 0;
    });

    function mailWorker(smtpUrl: string) {
      return new MailWorker({
        db: server.db,
        transport: smtpTransport(smtpUrl, "Paylink <no-reply@paylink.test>"),
        keyring: testKeyring(),
        logKept: false,
        publicBaseUrl: server.baseUrl,
        logger: silent,
        now: () => new Date(Date.now() + clockOffsetMs),
        alertIntervalMs: 3_600_000,
      });
    }
    /** Sends everything due now. */
    async function drain(using = worker) {
      while ((await using.runOnce()) > 0);
    }
    async function payWithEmail(culture: "is" | "en", email = SHOPPER) {
      const reference = await createLink(server, {
        culture,
        amount: ITEMS_TOTAL,
        items: ITEMS,
        shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
      });
      const paid = await pay(server.baseUrl, reference, { ...cardFields(), EmailAddress: email });
      assert.equal(paid.status, 200, "the payment is approved");
      const link = await getLink(server, reference);
      return {
        reference,
        checkoutReference: link.submissions[0].checkoutReference as string,
        payfacReference: link.submissions[0].payfacReference as string,
      };
    }

    for (const lang of ["is", "en"] as const) {
      test(`a payment with the shopper's e-mail gives exactly one receipt, in the checkout's language (${lang})`, async () => {
        const { checkoutReference } = await payWithEmail(lang);
        await drain();
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(mailbox.messages.length, 1, "one message");
        const [receipt] = mailbox.messages;
        assert.equal(receipt!.to, SHOPPER);
        assert.equal(receipt!.language, lang);
        assert.equal(receipt!.subject, lang === "is" ? "Kvittun frá Test merchant" : "Your receipt from Test merchant");
        for (const body of [receipt!.text, receipt!.html]) {
          assert.ok(body.includes("Lopapeysa"), "first item");
          assert.ok(body.includes("Húfa"), "second item");
          assert.ok(body.includes(formatMoney(ITEMS_TOTAL, "ISK", lang)), "amount");
          assert.ok(body.includes("Visa •••• 1111"), "masked card");
          assert.ok(body.includes(checkoutReference), "reference");
        }
        assert.ok(!receipt!.text.includes("4111111111111111"), "never the card number");
        assert.match(receipt!.text, lang === "is" ? /Takk fyrir greiðsluna/ : /Thank you for your payment/);
        const rows = await sql<{ status: string }>`SELECT status FROM mail_outbox WHERE checkout_reference = ${checkoutReference}`.execute(
          server.db,
        );
        assert.deepEqual(rows.rows, [{ status: "sent" }]);
      });
    }

    test("the admin API lists the merchant's mail, newest first, without bodies", async () => {
      const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      const listed = await server.api("GET", `/admin/v1/merchants/${server.merchantId}/mail?pageSize=2`, undefined, admin);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.ok(listed.body.totalCount >= 2);
      assert.equal(listed.body.data.length, 2);
      const [newest] = listed.body.data;
      assert.equal(newest.kind, "receipt");
      assert.equal(newest.status, "sent");
      assert.equal(newest.recipient, SHOPPER);
      assert.equal(newest.html, undefined);
      assert.ok(Date.parse(listed.body.data[0].createdAt) >= Date.parse(listed.body.data[1].createdAt));
      const other = await server.addMerchant();
      const none = await server.api("GET", `/admin/v1/merchants/${other.merchantId}/mail`, undefined, admin);
      assert.deepEqual(none.body, { data: [], totalCount: 0 }, "another merchant's mail is its own");
      assert.equal((await server.api("GET", `/admin/v1/merchants/${server.merchantId}/mail?pageSize=0`, undefined, admin)).status, 400);
      assert.equal((await server.api("GET", "/admin/v1/merchants/mer_nobody/mail", undefined, admin)).status, 404);
      assert.equal((await server.api("GET", `/admin/v1/merchants/${server.merchantId}/mail`)).status, 401);
    });

    test("a session's shopperContact gets the receipt, naming the shop's order", async () => {
      const session = await createSession(server, { shopperContact: "contact@example.com", culture: "is", reference: "order-77" });
      const paid = await paySession(server.baseUrl, session.checkoutReference);
      assert.equal(paid.status, 303, "approved and sent back to the shop");
      await drain();
      const [receipt] = await mailbox.waitFor(1);
      assert.equal(receipt!.to, "contact@example.com");
      assert.equal(receipt!.language, "is");
      assert.ok(receipt!.text.includes("Pöntun: order-77"), receipt!.text);
      assert.ok(receipt!.text.includes(formatMoney(489000, "ISK", "is")));
    });

    for (const lang of ["is", "en"] as const) {
      test(`an authorisation the shop captures later is worded as a reservation, never as paid (${lang})`, async () => {
        const session = await createSession(server, { shopperContact: "held@example.com", culture: lang, isManualCapture: true });
        assert.equal((await paySession(server.baseUrl, session.checkoutReference)).status, 303);
        await drain();
        const [receipt] = await mailbox.waitFor(1);
        const amount = formatMoney(489000, "ISK", lang);
        const expected =
          lang === "is"
            ? {
                subject: "Pöntun hjá Test merchant: upphæð frátekin á kortinu þínu",
                intro: `hefur tekið frá ${amount}`,
                when: "Tekið frá:",
              }
            : {
                subject: "Your order with Test merchant: amount reserved on your card",
                intro: `has reserved ${amount}`,
                when: "Reserved:",
              };
        assert.equal(receipt!.subject, expected.subject);
        for (const body of [receipt!.text, receipt!.html]) {
          assert.ok(body.includes(expected.intro), body);
          // None of the paid receipt's claims: its title, its intro, its "Paid" line, its footer.
          const claims =
            lang === "is"
              ? /Takk fyrir greiðsluna|tekið við greiðslunni|Greitt|þú greiddir/
              : /Thank you for your payment|received your payment|Paid|you paid/;
          assert.doesNotMatch(body, claims);
        }
        assert.ok(receipt!.text.includes(expected.when), receipt!.text);
      });
    }

    test("a recipient the server refuses for good (550) is given up on at once, with the server's answer", async () => {
      const strict = await startMailbox(0, { refuses: (address) => address.startsWith("gone@") });
      try {
        const { checkoutReference } = await payWithEmail("en", "gone@example.com");
        await drain(mailWorker(strict.url));
        const row = await sql<{ status: string; attempts: number; last_error: string }>`
          SELECT status, attempts, last_error FROM mail_outbox WHERE checkout_reference = ${checkoutReference}`.execute(server.db);
        assert.equal(row.rows[0]?.status, "failed");
        assert.equal(row.rows[0]?.attempts, 1);
        assert.match(row.rows[0]!.last_error, /550/);
        assert.equal(strict.messages.length, 0);
      } finally {
        await strict.close();
      }
    });

    test("no e-mail known: no receipt", async () => {
      const reference = await createLink(server, { amount: 1000 });
      assert.equal((await pay(server.baseUrl, reference)).status, 200);
      await drain();
      assert.equal(mailbox.messages.length, 0);
    });

    test("a refund sends its notice to the receipt's address, in its language", async () => {
      const { payfacReference } = await payWithEmail("is", "refundee@example.com");
      await drain();
      await mailbox.waitFor(1);
      mailbox.messages.length = 0;
      const refunded = await refund(server, payfacReference, 9000);
      assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
      await drain();
      await mailbox.waitFor(1);
      const [notice] = mailbox.messages;
      assert.equal(notice!.to, "refundee@example.com");
      assert.equal(notice!.subject, "Endurgreiðsla frá Test merchant");
      assert.ok(notice!.text.includes(formatMoney(9000, "ISK", "is")), notice!.text);
      assert.ok(notice!.text.includes("Visa •••• 1111"));
    });

    test("an opted-in portal user gets 'you got paid' in the user's language; others get nothing", async () => {
      await addPortalUser(server, server, "owner@example.com");
      await addPortalUser(server, server, "quiet@example.com");
      const owner = await server.db
        .selectFrom("portal_users")
        .select(["id"])
        .where("email", "=", "owner@example.com")
        .executeTakeFirstOrThrow();
      await saveNotificationSettings(
        server.db,
        { userId: owner.id, merchantId: server.merchantId },
        { notifyPayments: true, mailLanguage: "is" },
      );
      const { checkoutReference } = await payWithEmail("en", "buyer@example.com");
      await drain();
      await mailbox.waitFor(2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const byRecipient = new Map(mailbox.messages.map((message) => [message.to, message]));
      assert.deepEqual([...byRecipient.keys()].sort(), ["buyer@example.com", "owner@example.com"]);
      const paid = byRecipient.get("owner@example.com")!;
      assert.equal(paid.subject, `Þú fékkst greitt: ${formatMoney(ITEMS_TOTAL, "ISK", "is")}`);
      assert.ok(paid.text.includes(`${server.baseUrl}/portal/payments/${checkoutReference}`));
      await sql`UPDATE portal_users SET notify_payments = false WHERE merchant_id = ${server.merchantId}`.execute(server.db);
    });

    test("SMTP down: the payment still succeeds, the receipt waits and goes once the server is back", async () => {
      const down = await startMailbox();
      const port = down.port;
      await down.close();
      const downWorker = mailWorker(`smtp://127.0.0.1:${port}`);
      const { checkoutReference } = await payWithEmail("en", "patient@example.com");
      await drain(downWorker);
      const waiting = await sql<{ status: string; attempts: number; last_error: string | null; next_attempt_at: Date }>`
        SELECT status, attempts, last_error, next_attempt_at FROM mail_outbox WHERE checkout_reference = ${checkoutReference}`.execute(
        server.db,
      );
      assert.equal(waiting.rows[0]?.status, "pending");
      assert.equal(waiting.rows[0]?.attempts, 1);
      assert.match(String(waiting.rows[0]?.last_error), /ECONNREFUSED/);
      assert.ok(new Date(waiting.rows[0]!.next_attempt_at).getTime() > Date.now() + 30_000, "tried again later, not at once");
      // payWithEmail asserted the approved receipt page: the payment did not wait for the mail.

      const back = await startMailbox(port);
      try {
        await drain(downWorker);
        assert.equal(back.messages.length, 0, "not before its time");
        clockOffsetMs = 2 * 60_000;
        await drain(downWorker);
        await back.waitFor(1);
        assert.equal(back.messages[0]!.to, "patient@example.com");
      } finally {
        await back.close();
      }
    });
  });
}
