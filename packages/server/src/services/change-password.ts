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

export type PasswordChangeOutcome = "changed" | "wrongPassword" | "tooShort";

export async function changePassword(
  db: Database,
  user: { userId: string; sessionId: string },
  current: string,
  next: string,
): Promise<PasswordChangeOutcome> {
  if (next.length < MIN_PASSWORD_LENGTH || next.length > MAX_PASSWORD_LENGTH) return "tooShort";
  const stored = await readPasswordHash(db, user.userId);
  if (stored === undefined || !(await verifyPassword(current, stored))) return "wrongPassword";
  await setPasswordHash(db, user.userId, await hashPassword(next));
  await endUserSessions(db, user.userId, user.sessionId);
  return "changed";
}
