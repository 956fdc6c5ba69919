// The mail of the portal's one-time links in tests: a real SMTP mailbox, a real mail worker that
// sends what the server queued to it, and the link as the person reads it in the message.
import { smtpTransport } from "../../src/mail/transport.ts";
import { MailWorker } from "../../src/mail/worker.ts";
import type { TestServer } from "./harness.ts";
import { testKeyring } from "./keyring.ts";
import { type Mailbox, type ReceivedMail, startMailbox } from "./mailbox.ts";

const silent = { info() {}, warn() {}, error() {} };

export interface AccountMail {
  mailbox: Mailbox;
  /** Sends every message due now; returns those that arrived with it. */
  deliver(): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startAccountMail(server: TestServer): Promise<AccountMail> {
  const mailbox = await startMailbox();
  const transport = smtpTransport(mailbox.url, "Paylink <no-reply@paylink.test>");
  const worker = new MailWorker({
    db: server.db,
    transport,
    keyring: testKeyring(),
    logKept: false,
    publicBaseUrl: server.baseUrl,
    logger: silent,
    now: () => new Date(),
    alertIntervalMs: 3_600_000,
  });
  return {
    mailbox,
    async deliver() {
      const before = mailbox.messages.length;
      while ((await worker.runOnce()) > 0);
      return mailbox.messages.slice(before);
    },
    async close() {
      transport.close();
      await mailbox.close();
    },
  };
}

/** The path of the one-time link in a message's plain text (`invitations` or `reset`), as a portal path. */
export function linkIn(mail: ReceivedMail, kind: "invitations" | "reset"): string {
  const match = new RegExp(`https?://[^\\s/]+(/portal/${kind}/[A-Za-z0-9_-]{43})`).exec(mail.text);
  if (!match) throw new Error(`no ${kind} link in: ${mail.text.slice(0, 300)}`);
  return match[1]!;
}
