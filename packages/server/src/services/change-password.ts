// A portal user changes their own password (docs/portal.md#account): the current one is required,
// and every other session of theirs ends, so a password changed because it leaked locks the
// other holder out at once.

import type { Database } from "../db/connect.ts";
import { endUserSessions } from "../db/portal-sessions-repository.ts";
import { readPasswordHash, setPasswordHash } from "../db/portal-users-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { hashPassword, verifyPassword } from "../security/passwords.ts";
import { changeAndRecord } from "./audit.ts";

/** The shortest new password the portal takes (the admin API's create-user takes the same). */
export const MIN_PASSWORD_LENGTH = 10;
const MAX_PASSWORD_LENGTH = 1000;

/** The one password rule of the portal: the account page, an accepted invitation and a reset use it. */
export function acceptablePassword(password: string): boolean {
  return password.length >= MIN_PASSWORD_LENGTH && password.length <= MAX_PASSWORD_LENGTH;
}

export type PasswordChangeOutcome = "changed" | "wrongPassword" | "tooShort";

/** Changes a signed-in user's password and ends their other sessions; with its audit entry (by `who`), in one transaction. */
export async function changePassword(
  db: Database,
  user: { userId: string; sessionId: string; merchantId: string },
  current: string,
  next: string,
  who: Actor,
): Promise<PasswordChangeOutcome> {
  if (!acceptablePassword(next)) return "tooShort";
  const stored = await readPasswordHash(db, user.userId);
  if (stored === undefined || !(await verifyPassword(current, stored))) return "wrongPassword";
  const hash = await hashPassword(next);
  await changeAndRecord(
    db,
    async (trx) => {
      await setPasswordHash(trx, user.userId, hash);
      await endUserSessions(trx, user.userId, user.sessionId);
    },
    () => ({ merchantId: user.merchantId, actor: who, action: "user.password-change", object: { type: "user", id: user.userId } }),
  );
  return "changed";
}
