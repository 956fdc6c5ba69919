import assert from "node:assert/strict";
import { test } from "node:test";
import { isPermanentSmtpFailure, MAIL_RETRY_DELAYS_MS, nextMailAttempt } from "../../../src/domain/mail/retry.ts";

const NOW = new Date("2026-11-28T12:00:00Z");

test("a failed send is tried again on the schedule, then given up on", () => {
  assert.equal(nextMailAttempt(1, { permanent: false }, NOW)?.toISOString(), "2026-11-28T12:01:00.000Z");
  assert.equal(nextMailAttempt(2, { permanent: false }, NOW)?.toISOString(), "2026-11-28T12:05:00.000Z");
  assert.equal(nextMailAttempt(MAIL_RETRY_DELAYS_MS.length, { permanent: false }, NOW)?.toISOString(), "2026-11-29T12:00:00.000Z");
  assert.equal(nextMailAttempt(MAIL_RETRY_DELAYS_MS.length + 1, { permanent: false }, NOW), null);
});

test("a refusal for good (5xx) is never tried again; 4xx and lost connections are", () => {
  assert.equal(nextMailAttempt(1, { permanent: true }, NOW), null);
  assert.equal(isPermanentSmtpFailure(550), true);
  assert.equal(isPermanentSmtpFailure(554), true);
  assert.equal(isPermanentSmtpFailure(451), false);
  assert.equal(isPermanentSmtpFailure(421), false);
  assert.equal(isPermanentSmtpFailure(undefined), false);
});
