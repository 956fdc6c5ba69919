// The checkout form's hidden `csrfToken` (SPEC §3: hidden inputs the page emits are posted back
// unchanged). It is stateless, so it works without a session, without cookies and across
// instances (the key is shared through the database):
//
//   <attemptKey>.<issuedAt seconds>.<HMAC-SHA256(key, "checkout-form|v1|reference|attempt|issuedAt")>
//
// - bound to one payment link: a token from another link's page is refused;
// - time-limited: a page left open longer than FORM_TOKEN_TTL_SECONDS must be reloaded;
// - carries the form attempt: posting the same rendered form twice (double click, reload) is
//   recognised as one attempt, so it makes one submission and one processor call.
// Cross-site posts are also refused by their Origin / Sec-Fetch-Site headers (see routes.ts).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const FORM_TOKEN_TTL_SECONDS = 12 * 60 * 60;
const CLOCK_SKEW_SECONDS = 5 * 60;

function mac(key: Buffer, reference: string, attempt: string, issuedAt: string): string {
  return createHmac("sha256", key).update(`checkout-form|v1|${reference}|${attempt}|${issuedAt}`, "utf8").digest("base64url");
}

export function newAttemptKey(): string {
  return randomBytes(16).toString("base64url");
}

export function issueFormToken(key: Buffer, reference: string, now: Date, attempt: string = newAttemptKey()): string {
  const issuedAt = String(Math.floor(now.getTime() / 1000));
  return `${attempt}.${issuedAt}.${mac(key, reference, attempt, issuedAt)}`;
}

/** The attempt key of a valid token for this link, or null. */
export function verifyFormToken(key: Buffer, reference: string, token: string, now: Date): { attemptKey: string } | null {
  const match = /^([A-Za-z0-9_-]{16,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const [, attempt, issuedAt, signature] = match as unknown as [string, string, string, string];
  const expected = Buffer.from(mac(key, reference, attempt, issuedAt));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const age = now.getTime() / 1000 - Number(issuedAt);
  if (age > FORM_TOKEN_TTL_SECONDS || age < -CLOCK_SKEW_SECONDS) return null;
  return { attemptKey: attempt };
}
