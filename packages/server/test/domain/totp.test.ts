// The otpauth library against RFC 6238 Appendix B (the SHA-1 rows: 8 digits, the ASCII secret
// "12345678901234567890"), and our use of it: six digits, 30 s, one step either side, spaces
// allowed, nothing but digits a code, and recovery codes typed loosely.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Secret, TOTP } from "otpauth";
import { formatRecoveryCode, newTotpSecret, normaliseRecoveryCode, totpStep, totpUri } from "../../src/domain/portal/totp.ts";

const RFC_6238_SHA1: Array<[number, string]> = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

test("otpauth gives RFC 6238 Appendix B's SHA-1 codes", () => {
  const secret = Secret.fromLatin1("12345678901234567890");
  for (const [seconds, code] of RFC_6238_SHA1) {
    assert.equal(TOTP.generate({ secret, algorithm: "SHA1", digits: 8, period: 30, timestamp: seconds * 1000 }), code, `T = ${seconds}`);
  }
});

test("a code is valid in its step and one either side, and says which step it is", () => {
  const secret = Secret.fromLatin1("12345678901234567890").base32;
  const at = new Date(1111111111 * 1000);
  const code = TOTP.generate({ secret: Secret.fromBase32(secret), digits: 6, period: 30, timestamp: at.getTime() });
  const step = Math.floor(1111111111 / 30);
  assert.equal(totpStep(secret, code, at), step);
  assert.equal(totpStep(secret, `${code.slice(0, 3)} ${code.slice(3)}`, at), step, "spaces as apps show them");
  assert.equal(totpStep(secret, code, new Date(at.getTime() + 30_000)), step, "one step late still works");
  assert.equal(totpStep(secret, code, new Date(at.getTime() + 90_000)), null, "three steps late does not");
  assert.equal(totpStep(secret, "12345", at), null);
  assert.equal(totpStep(secret, "abcdef", at), null);
});

test("new secrets are 160 bits of base32; the URI is the standard otpauth one", () => {
  const secret = newTotpSecret();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.notEqual(secret, newTotpSecret());
  const uri = totpUri(secret, "anna@example.com", "Paylink Prjón");
  assert.match(uri, /^otpauth:\/\/totp\//);
  assert.match(uri, new RegExp(`secret=${secret}`));
  assert.match(uri, /algorithm=SHA1&digits=6&period=30/);
});

test("recovery codes are read with or without dashes and in any case", () => {
  const code = formatRecoveryCode("abcd2345efgh6789");
  assert.equal(code, "abcd-2345-efgh-6789");
  assert.equal(normaliseRecoveryCode("ABCD 2345 EFGH 6789"), code);
  assert.equal(normaliseRecoveryCode("abcd2345efgh6789"), code);
  assert.equal(normaliseRecoveryCode("abcd-2345"), null);
  assert.equal(normaliseRecoveryCode("123456"), null);
});
