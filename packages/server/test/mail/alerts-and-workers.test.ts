// The mail worker beyond payments, over a real SMTP conversation: a webhook endpoint failing for
// an hour tells the merchant's users once per failing spell (time driven by the worker's clock),
// mail without SMTP_URL is kept, logged without one-time links and listed by `paylink mail`, and
// two workers on one PostgreSQL database send each message once.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { runMailCommand } from "../../src/cli/mail.ts";
import { type DatabaseHandle, openDatabase } from "../../src/db/connect.ts";
import { createMerchant } from "../../src/db/merchants-repository.ts";
import { createWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import { queueMail } from "../../src/mail/outbox.ts";
import { smtpTransport } from "../../src/mail/transport.ts";
import { MailWorker } from "../../src/mail/worker.ts";
import { queuePasswordResetMail } from "../../src/services/queue-account-mail.ts";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type Mailbox, startMailbox } from "../support/mailbox.ts";
import { addPortalUser } from "../support/portal.ts";
import { createLink, pay } from "../support/shopper.ts";
import { startReceiver } from "../webhooks/support.ts";

const silent = { info() {}, warn() {}, error() {} };
const HOUR = 3_600_000;

for (const backend of testBackends()) {
  describe(`endpoint failing alerts (${backend.name})`, () => {
    let server: TestServer;
    let mailbox: Mailbox;
    let receiverAnswers = 500;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      server = await startTestServer({ backend });
      mailbox = await startMailbox();
      receiver = await startReceiver(() => ({ status: receiverAnswers, body: "" }));
      await createWebhookEndpoint(server.db, testKeyring(), server.merchantId, { url: receiver.url });
      await addPortalUser(server, server, "owner@example.com");
      await addPortalUser(server, server, "developer@example.com");
      // A viewer and support do nothing about endpoints, so they are not told (only the two above are).
      await addPortalUser(server, server, "viewer@example.com");
      await addPortalUser(server, server, "support@example.com");
      await sql`UPDATE portal_users SET mail_language = 'is' WHERE email = 'owner@example.com'`.execute(server.db);
      await sql`UPDATE portal_users SET role = 'developer' WHERE email = 'developer@example.com'`.execute(server.db);
      await sql`UPDATE portal_users SET role = 'viewer' WHERE email = 'viewer@example.com'`.execute(server.db);
      await sql`UPDATE portal_users SET role = 'support' WHERE email = 'support@example.com'`.execute(server.db);
    });
    after(async () => {
      await receiver?.close();
      await mailbox?.close();
      await server?.close();
    });

    /** One payment, and its webhook tried once by a real worker (which the receiver answers). */
    async function paymentWithOneAttempt() {
      const before = receiver.requests.length;
      const reference = await createLink(server, { amount: 1000 });
      assert.equal((await pay(server.baseUrl, reference)).status, 200);
      await sql`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE state = 'pending'`.execute(server.db);
      const webhooks = new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true, idleIntervalMs: 20 }).start();
      try {
        await receiver.waitFor(before + 1);
        for (let i = 0; i < 200; i++) {
          const busy = await sql<{
            n: number;
          }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE lease_token IS NOT NULL AND lease_until > now()`.execute(server.db);
          if (busy.rows[0]?.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await webhooks.stop();
      }
    }
    function alertWorker(at: () => Date) {
      return new MailWorker({
        db: server.db,
        transport: smtpTransport(mailbox.url, "Paylink <no-reply@paylink.test>"),
        keyring: testKeyring(),
        logKept: false,
        publicBaseUrl: server.baseUrl,
        logger: silent,
        now: at,
        alertIntervalMs: 0,
      });
    }
    async function runAt(offsetMs: number) {
      const worker = alertWorker(() => new Date(Date.now() + offsetMs));
      while ((await worker.runOnce()) > 0);
    }

    test("an hour of failures gives one alert per owner, admin or developer, not one per delivery; a new spell after recovery gives another", async () => {
      await paymentWithOneAttempt();
      await runAt(30 * 60_000);
      assert.equal(mailbox.messages.length, 0, "not before an hour");

      await runAt(HOUR + 60_000);
      await mailbox.waitFor(2);
      const subjects = new Map(mailbox.messages.map((message) => [message.to, message.subject]));
      assert.equal(subjects.get("owner@example.com"), `Vefkrókur bilar: ${receiver.url}`);
      assert.equal(subjects.get("developer@example.com"), `Webhook endpoint failing: ${receiver.url}`);

      // More failed deliveries in the same spell, and more checks: nothing more.
      await paymentWithOneAttempt();
      await paymentWithOneAttempt();
      await runAt(HOUR + 2 * 60_000);
      await runAt(2 * HOUR);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(mailbox.messages.length, 2, "one alert per user for the whole spell");

      // The receiver recovers: every waiting delivery goes through and the spell ends.
      receiverAnswers = 200;
      await sql`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE state = 'pending'`.execute(server.db);
      const webhooks = new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true, idleIntervalMs: 20 }).start();
      try {
        for (let i = 0; i < 250; i++) {
          const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'`.execute(
            server.db,
          );
          if (left.rows[0]?.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await webhooks.stop();
      }
      await runAt(0);
      const alerts = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_endpoint_alerts`.execute(server.db);
      assert.equal(alerts.rows[0]?.n, 0, "the spell ended");

      // It fails again: a new spell, told again after its own hour.
      receiverAnswers = 503;
      await paymentWithOneAttempt();
      await runAt(30 * 60_000);
      assert.equal(mailbox.messages.length, 2);
      await runAt(HOUR + 60_000);
      await mailbox.waitFor(4);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(mailbox.messages.length, 4);
    });

    test("a password reset carries its link only in the message sent; the sealed link is erased then", async () => {
      mailbox.messages.length = 0;
      const secret = "https://paylink.test/portal/reset/TOKEN-abc&def";
      const id = await queuePasswordResetMail(server.db, testKeyring(), {
        merchantId: server.merchantId,
        email: "owner@example.com",
        language: "en",
        link: { url: secret, expiresAt: new Date(Date.now() + HOUR) },
        now: new Date(),
      });
      const stored = await sql<{ html: string; text: string; secret_sealed: string }>`
        SELECT html, text, secret_sealed FROM mail_outbox WHERE id = ${id}`.execute(server.db);
      assert.ok(!JSON.stringify(stored.rows[0]).includes("TOKEN-abc"), "never in clear in the database");
      await runAt(0);
      const [sent] = await mailbox.waitFor(1);
      assert.equal(sent!.subject, "Reset your Paylink password");
      assert.ok(sent!.text.includes(secret), sent!.text);
      assert.ok(sent!.html.includes('href="https://paylink.test/portal/reset/TOKEN-abc&amp;def"'), sent!.html);
      const after = await sql<{
        status: string;
        secret_sealed: string | null;
      }>`SELECT status, secret_sealed FROM mail_outbox WHERE id = ${id}`.execute(server.db);
      assert.deepEqual(after.rows[0], { status: "sent", secret_sealed: null });
    });
  });

  describe(`mail without SMTP_URL (${backend.name})`, () => {
    let handle: DatabaseHandle & { url?: string };
    let dataDir: string | undefined;
    let cleanUp: () => Promise<void>;
    before(async () => {
      if (backend.name === "pglite") {
        dataDir = mkdtempSync(join(tmpdir(), "paylink-mail-"));
        handle = await openDatabase({ kind: "pglite", dataDir });
        cleanUp = async () => rmSync(dataDir!, { recursive: true, force: true });
      } else {
        const database = await backend.open();
        handle = database;
        cleanUp = () => database.destroy();
      }
    });
    after(async () => cleanUp?.());

    test("mail is kept, logged without one-time links, and listed by paylink mail", async () => {
      const { merchantId } = await createMerchant(handle.db, "Kept shop");
      await queueMail(handle.db, {
        recipient: "shopper@example.com",
        language: "en",
        kind: "receipt",
        merchantId,
        subject: "Your receipt from Kept shop",
        html: "<p>Thanks</p>",
        text: "Thanks",
        checkoutReference: null,
      });
      const secret = "https://paylink.test/portal/reset/SECRET-TOKEN-123";
      await queuePasswordResetMail(handle.db, testKeyring(), {
        merchantId,
        email: "user@example.com",
        language: "is",
        link: { url: secret, expiresAt: new Date(Date.now() + HOUR) },
        now: new Date(),
      });
      const logged: string[] = [];
      const logger = { info: (object: object, message: string) => logged.push(JSON.stringify(object) + message), warn() {}, error() {} };
      const worker = new MailWorker({
        db: handle.db,
        transport: undefined,
        keyring: testKeyring(),
        logKept: true,
        publicBaseUrl: null,
        logger,
      });
      while ((await worker.runOnce()) > 0);
      const rows = await sql<{ status: string; secret_sealed: string | null; text: string }>`
        SELECT status, secret_sealed, text FROM mail_outbox ORDER BY created_at`.execute(handle.db);
      assert.deepEqual(
        rows.rows.map((row) => row.status),
        ["kept", "kept"],
      );
      assert.ok(
        rows.rows.every((row) => row.secret_sealed === null),
        "a kept one-time link is erased",
      );
      assert.ok(
        rows.rows.every((row) => !row.text.includes("SECRET-TOKEN")),
        "never in a body",
      );
      assert.equal(logged.length, 2, "both printed to the log");
      assert.ok(
        logged.every((line) => !line.includes("SECRET-TOKEN")),
        "never in the log",
      );
      assert.ok(logged.some((line) => line.includes("Thanks")));

      const env = dataDir ? { PAYLINK_DATA_DIR: dataDir } : { DATABASE_URL: handle.url! };
      if (dataDir) await handle.close();
      const listed = await runMailCommand(["--limit", "5"], env);
      assert.equal(listed.exitCode, 0, listed.stderr);
      assert.match(listed.stdout, /kept\s+receipt\s+en\s+mail_\w+\s+shopper@example\.com\n\s+Your receipt from Kept shop/);
      assert.match(listed.stdout, /kept\s+password-reset\s+is\s+mail_\w+\s+user@example\.com\n\s+Nýtt lykilorð í Paylink/);
      assert.ok(!listed.stdout.includes("SECRET-TOKEN"));
      assert.equal((await runMailCommand(["--limit", "x"], env)).exitCode, 2);
    });
  });
}

const postgres = testBackends().find((backend) => backend.name === "postgres");
if (postgres) {
  describe("two mail workers on one PostgreSQL database", () => {
    test("each message is sent once", async () => {
      const database = await postgres.open();
      const second = await openDatabase({ kind: "postgres", url: database.url! }, { migrate: false });
      const mailbox = await startMailbox();
      const workers: MailWorker[] = [];
      try {
        const { merchantId } = await createMerchant(database.db, "Busy shop");
        const count = 30;
        for (let i = 0; i < count; i++) {
          await queueMail(database.db, {
            recipient: `shopper${i}@example.com`,
            language: "en",
            kind: "receipt",
            merchantId,
            subject: `Receipt ${i}`,
            html: `<p>${i}</p>`,
            text: String(i),
          });
        }
        for (const db of [database.db, second.db]) {
          workers.push(
            new MailWorker({
              db,
              transport: smtpTransport(mailbox.url, "Paylink <no-reply@paylink.test>"),
              keyring: testKeyring(),
              logKept: false,
              publicBaseUrl: null,
              logger: silent,
              idleIntervalMs: 20,
              batch: 3,
            }).start(),
          );
        }
        await mailbox.waitFor(count, 20_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const subjects = mailbox.messages.map((message) => message.subject);
        assert.equal(subjects.length, count, "no message twice");
        assert.equal(new Set(subjects).size, count, "every message once");
        const sentBy = await sql<{ n: number }>`SELECT count(*)::int AS n FROM mail_outbox WHERE status = 'sent' AND attempts = 1`.execute(
          database.db,
        );
        assert.equal(sentBy.rows[0]?.n, count);
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
        await mailbox.close();
        await second.close();
        await database.destroy();
      }
    });
  });
}
