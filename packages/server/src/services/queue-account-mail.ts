// What the password-reset and invitation flows call to send their one-time link by e-mail. The
// link is sealed in the outbox, never in a body, a listing or a log, and erased once sent or
// expired (mail/outbox.ts queueMailWithOneTimeLink). Pass the flow's transaction to queue the mail
// with the token it stores, or the database to queue it alone.
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.ts";
import { notifyMailWorker, queueMailWithOneTimeLink } from "../mail/outbox.ts";
import { invitationMail, passwordResetMail } from "../mail/templates/account.tsx";
import type { SecretKeyring } from "../security/keyring.ts";
import type { Lang } from "../web/i18n.ts";

export interface OneTimeLink {
  /** The whole link, token included. */
  url: string;
  expiresAt: Date;
}

/** Queues "reset your password" to `email`; returns the message's id. Call notifyMailWorker after the commit. */
export async function queuePasswordResetMail(
  db: Kysely<DB>,
  keyring: SecretKeyring,
  input: { merchantId: string; email: string; language: Lang; link: OneTimeLink; now: Date },
): Promise<string> {
  const validHours = hoursBetween(input.now, input.link.expiresAt);
  const rendered = passwordResetMail(input.language, { email: input.email, validHours });
  return queueMailWithOneTimeLink(
    db,
    keyring,
    { ...rendered, recipient: input.email, language: input.language, kind: "password-reset", merchantId: input.merchantId },
    input.link,
  );
}

/** Queues an invitation to join `merchantName`'s portal; returns the message's id. Call notifyMailWorker after the commit. */
export async function queueInvitationMail(
  db: Kysely<DB>,
  keyring: SecretKeyring,
  input: { merchantId: string; merchantName: string; inviter: string; email: string; language: Lang; link: OneTimeLink; now: Date },
): Promise<string> {
  const validHours = hoursBetween(input.now, input.link.expiresAt);
  const rendered = invitationMail(input.language, { merchantName: input.merchantName, inviter: input.inviter, validHours });
  return queueMailWithOneTimeLink(
    db,
    keyring,
    { ...rendered, recipient: input.email, language: input.language, kind: "invitation", merchantId: input.merchantId },
    input.link,
  );
}

export { notifyMailWorker };

function hoursBetween(from: Date, to: Date): number {
  return Math.max(1, Math.round((to.getTime() - from.getTime()) / 3_600_000));
}
