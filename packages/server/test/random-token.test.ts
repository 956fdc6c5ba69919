// The pooled tokens (a page's CSP nonce, a checkout form's attempt key): the right length and
// alphabet, and never one twice, also across the pool's refills (256 tokens of 16 bytes a fill).
import assert from "node:assert/strict";
import { test } from "node:test";
import { randomToken } from "../src/ids.ts";

test("pooled tokens have their length and alphabet and never repeat, across many refills of the pool", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5_000; i++) {
    const token = randomToken(16, i % 2 === 0 ? "base64url" : "base64");
    assert.match(token, i % 2 === 0 ? /^[A-Za-z0-9_-]{22}$/ : /^[A-Za-z0-9+/]{22}==$/);
    seen.add(token);
  }
  assert.equal(seen.size, 5_000);
  // Sizes that do not divide the pool: the remainder is skipped, never read twice.
  const odd = Array.from({ length: 1_000 }, () => randomToken(18, "base64url"));
  assert.equal(new Set(odd).size, odd.length);
});
