// A portal user changes their own password (docs/portal.md#account): the current one is required,
// and every other session of theirs ends, so a password changed because it leaked locks the
// other holder out at once.
import type { Database } from "../db/connect.ts";
import { endUserSessions } from "../db/portal-sessions-repository.ts";
import { readPasswordHash, setPasswordHash } from "../db/portal-users-repository.ts";
import { hashPassword, verifyPassword } from "../security/passwords.ts";

/** The shortest new password the portal takes (the admin API's create-user takes the same). */
export const MIN_PASSWORD_LENGTH = 10;
const MAX_PASSWORD_LENGTH = 1000;

/** The one password rule of the portal: the account page, an accepted invitation and a reset use it. */
export function acceptablePassword(password: string): boolean {
  return password.length >= MIN_PASSWORD_LENGTH && password.length <= MAX_PASSWORD_LENGTH;
}

export type PasswordChangeOutcome = "changed" | "wrongPassword" | "tooShort";

export async function changePassword(
  db: Database,
  user: { userId: string; sessionId: string },
  current: string,
  next: string,
): Promise<PasswordChangeOutcome> {
  if (!acceptablePassword(next)) return "tooShort";
  const stored = await readPasswordHash(db, user.userId);
  if (stored === undefined || !(await verifyPassword(current, stored))) return "wrongPassword";
  await setPasswordHash(db, user.userId, await hashPassword(next));
  await endUserSessions(db, user.userId, user.sessionId);
  return "changed";
}
