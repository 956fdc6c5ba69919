// The brake on guessing portal passwords (docs/portal.md#sign-in). Pure: given the recent failures
// of the account and of the address, how long the next attempt must wait.

export const SIGNIN_WINDOW_SECONDS = 15 * 60;
/** Wrong passwords for one e-mail address within the window before it is held back. */
export const MAX_FAILURES_PER_ACCOUNT = 5;
/** Wrong passwords from one client address (any accounts) within the window. */
export const MAX_FAILURES_PER_ADDRESS = 20;

export interface FailureCount {
  count: number;
  /** The oldest failure still inside the window. */
  oldest: Date;
}

export const accountSubject = (email: string) => `account:${email.trim().toLowerCase()}`;
export const addressSubject = (address: string) => `address:${address}`;
/** Wrong second-factor codes of one user count like wrong passwords of one account, apart from them. */
export const secondFactorSubject = (userId: string) => `code:${userId}`;
/**
 * Password-reset requests are counted apart from sign-ins, with the same limits: every request
 * counts (its answer says nothing of whether the account exists), per e-mail and per address.
 */
export const resetSubjects = (email: string, address: string) =>
  [`reset:${email.trim().toLowerCase()}`, `reset-address:${address}`] as const;

/**
 * Seconds until a sign-in may be tried again (0: now). A subject at its limit waits until its
 * oldest failure leaves the window, so the wait is exact and never grows with more attempts.
 */
export function signinWaitSeconds(account: FailureCount | undefined, address: FailureCount | undefined, now: Date): number {
  const wait = (failures: FailureCount | undefined, max: number) => {
    if (!failures || failures.count < max) return 0;
    const freeAt = failures.oldest.getTime() + SIGNIN_WINDOW_SECONDS * 1000;
    return Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
  };
  return Math.max(wait(account, MAX_FAILURES_PER_ACCOUNT), wait(address, MAX_FAILURES_PER_ADDRESS));
}
