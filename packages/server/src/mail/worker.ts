// The mail worker (docs/operations.md#e-mail). It runs inside `paylink serve`, or beside the webhook
// worker in `paylink worker`; any number share one database:
//   claim  — lease due messages (FOR UPDATE SKIP LOCKED + lease_until/lease_token);
//   send   — outside any transaction, a few at a time, through the SMTP transport;
//   record — sent, or tried again later by the schedule of domain/mail/retry.ts, or given up on.
// Without a transport (no SMTP_URL) it keeps the messages instead: `kept`, listed by `paylink mail`
// and, on the embedded database, printed to the log without their one-time links.
// Once a minute it also tells merchants of webhook endpoints failing for an hour, and erases
// one-time links whose time is over.
import type { Database } from "../db/connect.ts";
import {
  type ClaimedMail,
  claimDueMail,
  eraseExpiredOneTimeLinks,
  keepPendingMail,
  markMailFailed,
  markMailSent,
} from "../db/mail-outbox-repository.ts";
import { nextMailAttempt } from "../domain/mail/retry.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { backOffMs, WorkerPause } from "../worker-pause.ts";
import { alertFailingEndpoints } from "./endpoint-alerts.ts";
import { ONE_TIME_LINK_PLACEHOLDER } from "./message.ts";
import { mailSignal, oneTimeLinkContext } from "./outbox.ts";
import { MailSendError, type MailTransport } from "./transport.ts";

export interface MailWorkerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface MailWorkerOptions {
  db: Database;
  /** Undefined without SMTP_URL: messages are kept, not sent. */
  transport: MailTransport | undefined;
  keyring: SecretKeyring;
  /** Print kept messages to the log (the embedded database's demo mode). */
  logKept: boolean;
  /** For the links in alerts; null leaves them out. */
  publicBaseUrl: string | null;
  logger: MailWorkerLogger;
  now?: () => Date;
  /** Poll interval when nothing wakes the worker (default 1 s). */
  idleIntervalMs?: number;
  /** How often endpoint alerts are looked for (default 60 s). */
  alertIntervalMs?: number;
  /** Messages claimed and sent at once (default 4). */
  batch?: number;
  /** How long a claim holds a message (default 2 minutes: longer than an SMTP attempt can take). */
  leaseMs?: number;
}

export class MailWorker {
  readonly #options: Required<Omit<MailWorkerOptions, "transport">> & { transport: MailTransport | undefined };
  #stopping = false;
  #loop: Promise<void> | undefined;
  readonly #pause = new WorkerPause();
  #lastAlertCheck = Number.NEGATIVE_INFINITY;

  constructor(options: MailWorkerOptions) {
    this.#options = {
      now: () => new Date(),
      idleIntervalMs: 1000,
      alertIntervalMs: 60_000,
      batch: 4,
      leaseMs: 120_000,
      ...options,
    };
  }

  start(): this {
    if (this.#loop) return this;
    mailSignal.on("wake", this.#pause.wake);
    this.#loop = this.#run();
    return this;
  }

  /** Stops after the messages in hand are sent or handed back; call before closing the database. */
  async stop(): Promise<void> {
    this.#stopping = true;
    mailSignal.off("wake", this.#pause.wake);
    this.#pause.wake();
    await this.#loop;
    this.#options.transport?.close();
  }

  /** One round: alerts when due, then what is due to send (or keep). Returns how many messages were handled. */
  async runOnce(): Promise<number> {
    const { db, now } = this.#options;
    const at = now();
    if (at.getTime() - this.#lastAlertCheck >= this.#options.alertIntervalMs) {
      this.#lastAlertCheck = at.getTime();
      const queued = await alertFailingEndpoints(db, at, this.#options.publicBaseUrl);
      if (queued > 0) this.#options.logger.info({ messages: queued }, "webhook endpoint failing: merchant told by e-mail");
      await eraseExpiredOneTimeLinks(db, at);
    }
    return this.#options.transport ? this.#sendDue(this.#options.transport) : this.#keepPending();
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopping) {
      this.#pause.roundBegins();
      let handled = 0;
      try {
        handled = await this.runOnce();
        failures = 0;
      } catch (error) {
        // The database may be restarting: back off (up to 30 s) and keep going.
        failures += 1;
        this.#options.logger.error({ err: error }, "the mail worker could not reach its queue");
        await this.#pause.wait(backOffMs(this.#options.idleIntervalMs, failures));
        continue;
      }
      if (handled < this.#options.batch) await this.#pause.wait(this.#options.idleIntervalMs);
    }
  }

  async #sendDue(transport: MailTransport): Promise<number> {
    const { db, now, batch, leaseMs } = this.#options;
    const claimed = await claimDueMail(db, now(), batch, leaseMs);
    await Promise.all(claimed.map((mail) => this.#send(transport, mail)));
    return claimed.length;
  }

  async #send(transport: MailTransport, mail: ClaimedMail): Promise<void> {
    const { db, now, logger } = this.#options;
    let html = mail.html;
    let text = mail.text;
    try {
      if (mail.secretSealed) {
        const link = this.#options.keyring.decrypt(mail.secretSealed, oneTimeLinkContext(mail.id));
        html = html.replaceAll(ONE_TIME_LINK_PLACEHOLDER, escapeAttribute(link));
        text = text.replaceAll(ONE_TIME_LINK_PLACEHOLDER, link);
      } else if (html.includes(ONE_TIME_LINK_PLACEHOLDER)) {
        // Its link was erased (expired): sending it would hand over a dead button.
        throw new MailSendError("its one-time link has expired", true);
      }
      await transport.send({ id: mail.id, to: mail.recipient, subject: mail.subject, html, text, language: mail.language });
    } catch (error) {
      const permanent = error instanceof MailSendError ? error.permanent : false;
      const reason = error instanceof Error ? error.message : String(error);
      const next = nextMailAttempt(mail.attempts, { permanent }, now());
      logger.warn(
        { mailId: mail.id, kind: mail.kind, attempts: mail.attempts, nextAttemptAt: next, error: reason },
        next ? "e-mail not sent; it is tried again later" : "e-mail not sent; given up",
      );
      await markMailFailed(db, mail, reason, next);
      return;
    }
    await markMailSent(db, mail, now());
    logger.info({ mailId: mail.id, kind: mail.kind }, "e-mail sent");
  }

  async #keepPending(): Promise<number> {
    const { db, batch, logKept, logger } = this.#options;
    const kept = await keepPendingMail(db, batch);
    if (logKept) {
      for (const mail of kept) {
        // The text part as queued: a one-time link is only ever a placeholder in it.
        logger.info(
          { mailId: mail.id, kind: mail.kind, to: mail.recipient, subject: mail.subject },
          `e-mail kept (no SMTP_URL):\n${mail.text}`,
        );
      }
    }
    return kept.length;
  }
}

function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
