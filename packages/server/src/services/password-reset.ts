// A forgotten portal password (docs/portal.md#password-reset): the sign-in page asks for the
// e-mail and always answers the same, so it tells no one whether an account exists; an account's
// mail carries a one-time link valid one hour. Setting the new password uses the link up, ends
// every session of the user, and leaves two-factor sign-in as it was: the code is still asked for.
import type { Database } from "../db/connect.ts";
import { findPasswordReset, insertPasswordReset, takePasswordReset } from "../db/one-time-links-repository.ts";
import { endUserSessions, findPortalUserByEmail } from "../db/portal-sessions-repository.ts";
import { findUserById, setPasswordHash } from "../db/portal-users-repository.ts";
import { userActor } from "../domain/audit/actor.ts";
import { expiresAfter, type LinkState, linkState, RESET_VALID_HOURS } from "../domain/portal/one-time-links.ts";
import { newLinkToken } from "../ids.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { hashPassword } from "../security/passwords.ts";
import type { Lang } from "../web/i18n.ts";
import { recordAudit } from "./audit.ts";
import { acceptablePassword } from "./change-password.ts";
import { notifyMailWorker, queuePasswordResetMail } from "./queue-account-mail.ts";

export const resetUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/portal/reset/${token}`;

/** Mails a reset link when `email` is a portal user's; does nothing otherwise (the caller answers the same). */
export async function requestPasswordReset(
  deps: { db: Database; keyring: SecretKeyring; publicBaseUrl: string; now: () => Date },
  input: { email: string; language: Lang; address: string },
): Promise<void> {
  const user = input.email === "" ? undefined : await findPortalUserByEmail(deps.db, input.email);
  if (!user) return;
  const now = deps.now();
  const token = newLinkToken();
  const expiresAt = expiresAfter(now, RESET_VALID_HOURS);
  await deps.db.transaction().execute(async (trx) => {
    await insertPasswordReset(trx, user.userId, token, expiresAt);
    await queuePasswordResetMail(trx, deps.keyring, {
      merchantId: user.merchantId,
      email: user.email,
      language: input.language,
      link: { url: resetUrl(deps.publicBaseUrl, token), expiresAt },
      now,
    });
    // "Who" is whoever typed the address, from this address: the account is the nearest name for it.
    await recordAudit(trx, {
      merchantId: user.merchantId,
      actor: userActor(user, input.address),
      action: "user.password-reset-request",
      object: { type: "user", id: user.userId },
    });
  });
  notifyMailWorker();
}

export type ResetLinkState = Exclude<LinkState, "usable" | "revoked"> | "unknown";

/** Whether the reset link may still be used (its user's id), or why not. */
export async function resetLinkUser(deps: { db: Database; now: () => Date }, token: string): Promise<{ userId: string } | ResetLinkState> {
  const found = await findPasswordReset(deps.db, token);
  if (!found) return "unknown";
  const state = linkState(found, deps.now());
  return state === "usable" ? { userId: found.userId } : state === "revoked" ? "unknown" : state;
}

export type ResetOutcome = "reset" | "tooShort" | ResetLinkState;

export async function resetPassword(
  deps: { db: Database; now: () => Date },
  token: string,
  password: string,
  address: string,
): Promise<ResetOutcome> {
  const link = await resetLinkUser(deps, token);
  if (typeof link === "string") return link;
  if (!acceptablePassword(password)) return "tooShort";
  const passwordHash = await hashPassword(password);
  return deps.db.transaction().execute(async (trx) => {
    if (!(await takePasswordReset(trx, token, link.userId, deps.now()))) return "used";
    const user = await findUserById(trx, link.userId);
    if (!user) return "unknown";
    await setPasswordHash(trx, link.userId, passwordHash);
    await endUserSessions(trx, link.userId);
    await recordAudit(trx, {
      merchantId: user.merchantId,
      actor: userActor(user, address),
      action: "user.password-reset",
      object: { type: "user", id: user.userId },
    });
    return "reset";
  });
}
