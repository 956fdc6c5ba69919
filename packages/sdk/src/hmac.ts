// The HMAC key bytes and the constant-time signature comparison that both signatures of a payment
// webhook share: the hmacSignature in the body and the Standard Webhooks header.
import { timingSafeEqual } from "node:crypto";
import { describeHexKeyProblem } from "./webhook-input.js";

/**
 * Turns a hex HMAC key into bytes as docs/webhooks.md#the-hmacsignature step 5 says: an odd-length key gets a trailing
 * "0", then every pair of digits is one byte. Upper- and lowercase digits are both accepted.
 * @throws TypeError when the key is not a non-empty string of hex digits.
 */
export function hmacKeyFromHex(hexKey: string): Buffer {
  const problem = describeHexKeyProblem(hexKey);
  if (problem !== undefined) throw new TypeError(problem);
  const evenLengthKey = hexKey.length % 2 === 1 ? `${hexKey}0` : hexKey;
  return Buffer.from(evenLengthKey, "hex");
}

/**
 * Constant-time check of a Base64 signature against the expected digest. Node's Base64 decoder
 * skips characters outside the alphabet, so the received text must also be the canonical
 * encoding: exactly one string is accepted per digest. Lengths are compared first because
 * timingSafeEqual throws on unequal lengths; the length of a digest is no secret.
 */
export function base64DigestMatches(expected: Buffer, receivedBase64: string): boolean {
  const received = Buffer.from(receivedBase64, "base64");
  if (received.length !== expected.length || received.toString("base64") !== receivedBase64) return false;
  return timingSafeEqual(received, expected);
}
