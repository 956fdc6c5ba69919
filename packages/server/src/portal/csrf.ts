// Kept ours: @fastify/csrf-protection keeps its secret in a cookie or @fastify/session, not in the session row every instance reads.
// Cross-site request forgery defences of the portal (docs/portal.md#csrf). Every form carries a
// hidden `csrf` field and every POST without the right value is refused before its handler runs:
// - signed in: the session's own random token (kept in the session row), compared in constant time;
// - the sign-in form (no session yet): an HMAC of a random cookie set with the form, so another
//   site cannot sign a victim into the attacker's account ("login CSRF").
// The browser's Sec-Fetch-Site / Origin headers are checked too, as a second lock.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function newSigninNonce(): string {
  return randomBytes(18).toString("base64url");
}

export function signinToken(key: Buffer, nonce: string): string {
  return createHmac("sha256", key).update(`portal-signin|${nonce}`).digest("base64url");
}

export function validSigninToken(key: Buffer, nonce: string | undefined, token: string): boolean {
  if (!nonce || !/^[A-Za-z0-9_-]{16,64}$/.test(nonce)) return false;
  return sameSecret(signinToken(key, nonce), token);
}
