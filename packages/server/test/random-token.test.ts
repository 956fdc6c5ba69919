// Random tokens (a page's CSP nonce, a checkout form's attempt key): the right length and
// alphabet for each encoding, and never one twice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { randomToken } from "../src/ids.ts";

test("random tokens have their length and alphabet and never repeat", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5_000; i++) {
    const token = randomToken(16, i % 2 === 0 ? "base64url" : "base64");
    assert.match(token, i % 2 === 0 ? /^[A-Za-z0-9_-]{22}$/ : /^[A-Za-z0-9+/]{22}==$/);
    seen.add(token);
  }
  assert.equal(seen.size, 5_000);
  const longer = Array.from({ length: 1_000 }, () => randomToken(18, "base64url"));
  assert.ok(longer.every((token) => /^[A-Za-z0-9_-]{24}$/.test(token)));
  assert.equal(new Set(longer).size, longer.length);
});
