// The mail outbox (docs/operations.md#e-mail): callers pass their open transaction, so a message
// commits or vanishes with the event it tells of; the worker (mail/worker.ts) sends it later, with
// retries. Messages are rendered before they are queued: a queue step is one INSERT.
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DB } from "../db/schema.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import type { Lang } from "../web/i18n.ts";
import type { MailKind, MailMessage, RenderedMail } from "./message.ts";

/** A message for each portal user of the merchant who opted in, in that user's language. */
export interface PerUserMail {
  kind: MailKind;
  byLanguage: Record<Lang, RenderedMail>;
  checkoutReference: string | null;
}

/** The mail of one recorded payment, rendered and ready to queue. */
export interface PaymentMail {
  messages: MailMessage[];
  perUser: PerUserMail | null;
}

export const NO_PAYMENT_MAIL: PaymentMail = { messages: [], perUser: null };

/**
 * The INSERT of a payment's mail, as one step of the statement that writes its result (`onlyIf`
 * one of its conditions): the given messages, and the opted-in users' "you got paid". One text
 * whatever is queued (empty arrays queue nothing), so the statement keeps one prepared shape.
 */
export function paymentMailInsertSql(
  merchantId: string,
  messages: readonly MailMessage[],
  perUser: PerUserMail | null,
  onlyIf: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const direct = messages.map((message) => ({
    recipient: message.recipient,
    language: message.language,
    kind: message.kind,
    subject: message.subject,
    html: message.html,
    text: message.text,
    checkoutReference: message.checkoutReference ?? null,
  }));
  const users = perUser
    ? (["is", "en"] as const).map((language) => ({
        language,
        kind: perUser.kind,
        ...perUser.byLanguage[language],
        checkoutReference: perUser.checkoutReference,
      }))
    : [];
  return sql`INSERT INTO mail_outbox (merchant_id, recipient, language, kind, subject, html, text, checkout_reference)
      SELECT ${merchantId}, m.recipient, m.language, m.kind, m.subject, m.html, m.text, m.checkout_reference
      FROM (
        SELECT e ->> 'recipient' AS recipient, e ->> 'language' AS language, e ->> 'kind' AS kind, e ->> 'subject' AS subject,
               e ->> 'html' AS html, e ->> 'text' AS text, e ->> 'checkoutReference' AS checkout_reference
        FROM jsonb_array_elements(${JSON.stringify(direct)}::jsonb) AS e
        UNION ALL
        SELECT u.email, u.mail_language, e ->> 'kind', e ->> 'subject', e ->> 'html', e ->> 'text', e ->> 'checkoutReference'
        FROM jsonb_array_elements(${JSON.stringify(users)}::jsonb) AS e
        JOIN portal_users u ON u.merchant_id = ${merchantId} AND u.notify_payments AND u.mail_language = e ->> 'language'
      ) AS m
      WHERE ${onlyIf}`;
}

/** Queues one message, in the caller's transaction (or on its own). */
export async function queueMail(db: Kysely<DB>, message: MailMessage): Promise<void> {
  await db.insertInto("mail_outbox").values(rowOf(message)).execute();
}

/**
 * Queues a message that carries a one-time link (password reset, invitation). The bodies hold
 * ONE_TIME_LINK_PLACEHOLDER; the link is sealed with the keyring under this row's id and erased
 * once the mail is sent, given up on or past `expiresAt` (the link is dead by then anyway).
 */
export async function queueMailWithOneTimeLink(
  db: Kysely<DB>,
  keyring: SecretKeyring,
  message: MailMessage,
  oneTimeLink: { url: string; expiresAt: Date },
): Promise<string> {
  const id = `mail_${randomUUID().replaceAll("-", "")}`;
  await db
    .insertInto("mail_outbox")
    .values({
      ...rowOf(message),
      id,
      secret_sealed: keyring.encrypt(oneTimeLink.url, oneTimeLinkContext(id)),
      secret_expires_at: oneTimeLink.expiresAt,
    })
    .execute();
  return id;
}

export const oneTimeLinkContext = (mailId: string) => `mail_outbox:${mailId}:secret`;

function rowOf(message: MailMessage) {
  return {
    merchant_id: message.merchantId,
    recipient: message.recipient,
    language: message.language,
    kind: message.kind,
    subject: message.subject,
    html: message.html,
    text: message.text,
    checkout_reference: message.checkoutReference ?? null,
  };
}

/** Wakes this process's mail worker after a commit; other instances find the rows on their poll. */
export const mailSignal = new EventEmitter();
export function notifyMailWorker(): void {
  mailSignal.emit("wake");
}
