// When a message that could not be sent is tried again, and when Paylink gives up: a mail server
// that is down for a day still gets every message, and one that refuses a message for good (a
// 5xx answer: no such mailbox) is not asked again.

/** Waits after the 1st, 2nd… failed attempt; after the last, the message is given up on. */
export const MAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000, 12 * 3600_000, 24 * 3600_000];

export type MailFailure = { permanent: boolean };

/** The next attempt's time, or null to give up: after `attempts` tries, the last of which failed. */
export function nextMailAttempt(attempts: number, failure: MailFailure, now: Date): Date | null {
  if (failure.permanent) return null;
  const wait = MAIL_RETRY_DELAYS_MS[attempts - 1];
  return wait === undefined ? null : new Date(now.getTime() + wait);
}

/** An SMTP reply code of 5xx refuses the message for good; 4xx, a dropped connection or a time-out is worth another try. */
export function isPermanentSmtpFailure(responseCode: number | undefined): boolean {
  return responseCode !== undefined && responseCode >= 500 && responseCode < 600;
}
