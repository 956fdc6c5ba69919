// Two-factor sign-in codes (docs/portal.md#two-factor-sign-in): RFC 6238 TOTP with the otpauth
// library, in the shape every authenticator app understands (SHA-1, 6 digits, 30 seconds). Pure:
// a secret, a code and a time in, the time step the code belongs to out. Which step was used last
// (so a code is never accepted twice) is the caller's to keep.
import { Secret, TOTP } from "otpauth";

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Codes of one step before and after now are accepted too: a phone's clock a little off still works. */
const WINDOW_STEPS = 1;

function totp(secretBase32: string, label = "", issuer = "") {
  return new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(secretBase32),
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** A new random secret (160 bits, as RFC 4226 recommends), in base32 as apps show and take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// address the QR code carries. */
export function totpUri(secretBase32: string, email: string, issuer: string): string {
  return totp(secretBase32, email, issuer).toString();
}

/**
 * The time step `code` is valid for at `now`, or null when it is not a current code. Spaces are
 * allowed (apps show "123 456"); anything but six digits is no code.
 */
export function totpStep(secretBase32: string, code: string, now: Date): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totp(secretBase32).validate({ token, timestamp: now.getTime(), window: WINDOW_STEPS });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** Recovery codes are four groups of four letters and digits ("k3m9-…"). */
export const RECOVERY_CODE_COUNT = 10;
export const RECOVERY_CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

export function formatRecoveryCode(plain: string): string {
  return plain.match(/.{1,4}/g)!.join("-");
}

/** A recovery code as typed (with or without dashes and spaces, in any case), or null when it cannot be one. */
export function normaliseRecoveryCode(typed: string): string | null {
  const plain = typed.replace(/[\s-]+/g, "").toLowerCase();
  return /^[a-z0-9]{16}$/.test(plain) ? formatRecoveryCode(plain) : null;
}
