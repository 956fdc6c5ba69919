// The retry schedule of docs/webhooks.md#delivery-and-retries, and the encryption of endpoint secrets at rest.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ConfigError } from "../../src/config.ts";
import { createMerchant, createPortalUser } from "../../src/db/merchants-repository.ts";
import { createWebhookEndpoint, revealWebhookSecrets } from "../../src/db/webhook-endpoints-repository.ts";
import { checkStoredSecrets, resolveSecretKeyring, SecretDecryptionError, SecretKeyring } from "../../src/security/keyring.ts";
import { readTotpSecret, startTwoFactorEnrolment } from "../../src/services/two-factor.ts";
import { DEFAULT_RETRY_DELAYS_MS, DEFAULT_RETRY_POLICY, nextRetryDelayMs, parseRetryAfter } from "../../src/webhooks/schedule.ts";
import { testBackends } from "../support/databases.ts";

describe("retry schedule", () => {
  test("immediately, then 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h, 24 h, then failed", () => {
    const exact = { ...DEFAULT_RETRY_POLICY, jitter: 0 };
    const delays = [];
    for (let attempt = 1; ; attempt++) {
      const delay = nextRetryDelayMs(attempt, exact);
      if (delay === undefined) break;
      delays.push(delay / 1000);
    }
    assert.deepEqual(delays, [5, 60, 300, 1800, 7200, 18000, 36000, 86400, 86400]);
    assert.equal(DEFAULT_RETRY_DELAYS_MS.length + 1, 10, "ten attempts in all");
  });

  test("jitter stays within ±10 %", () => {
    for (const value of [0, 0.25, 0.5, 0.999999]) {
      const delay = nextRetryDelayMs(1, { ...DEFAULT_RETRY_POLICY, random: () => value })!;
      assert.ok(delay >= 4500 && delay <= 5500, String(delay));
    }
    assert.equal(nextRetryDelayMs(1, { ...DEFAULT_RETRY_POLICY, random: () => 0 }), 4500);
    assert.equal(nextRetryDelayMs(1, { ...DEFAULT_RETRY_POLICY, random: () => 0.5 }), 5000);
  });

  test("Retry-After is a floor, capped at 24 h; it cannot bring a retry forward", () => {
    const exact = { ...DEFAULT_RETRY_POLICY, jitter: 0 };
    assert.equal(nextRetryDelayMs(1, exact, 60_000), 60_000);
    assert.equal(nextRetryDelayMs(3, exact, 1000), 300_000);
    assert.equal(nextRetryDelayMs(1, exact, 7 * 24 * 3600_000), 24 * 3600_000);
    assert.equal(nextRetryDelayMs(10, exact, 1000), undefined, "the schedule still ends");
  });

  test("Retry-After parses seconds and HTTP dates", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    assert.equal(parseRetryAfter("30", now), 30_000);
    assert.equal(parseRetryAfter(" 0 ", now), 0);
    assert.equal(parseRetryAfter("Tue, 01 Jan 2030 00:02:00 GMT", now), 120_000);
    assert.equal(parseRetryAfter("Mon, 31 Dec 2029 00:00:00 GMT", now), 0);
    assert.equal(parseRetryAfter("soon", now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
});

const KEY_A = "a".repeat(64);
const KEY_B = "b".repeat(64);

describe("secrets at rest", () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("AES-256-GCM round trip; the ciphertext is bound to its row and column", () => {
    const keyring = new SecretKeyring(KEY_A);
    const stored = keyring.encrypt("Bearer secret", "webhook_endpoints:whk_1:api_key");
    assert.match(stored, /^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/);
    assert.ok(!stored.includes("secret"));
    assert.notEqual(keyring.encrypt("Bearer secret", "ctx"), keyring.encrypt("Bearer secret", "ctx"), "a fresh IV every time");
    assert.equal(keyring.decrypt(stored, "webhook_endpoints:whk_1:api_key"), "Bearer secret");
    assert.throws(() => keyring.decrypt(stored, "webhook_endpoints:whk_2:api_key"), SecretDecryptionError);
    assert.throws(() => keyring.decrypt(stored, "webhook_endpoints:whk_1:hmac_key"), SecretDecryptionError);
    const tampered = stored.slice(0, -2) + (stored.endsWith("A") ? "BB" : "AA");
    assert.throws(() => keyring.decrypt(tampered, "webhook_endpoints:whk_1:api_key"), SecretDecryptionError);
    assert.throws(
      () => new SecretKeyring(KEY_B).decrypt(stored, "webhook_endpoints:whk_1:api_key"),
      /key [0-9a-f]{8}, which is not configured/,
    );
    assert.equal(
      new SecretKeyring(KEY_B, [KEY_A]).decrypt(stored, "webhook_endpoints:whk_1:api_key"),
      "Bearer secret",
      "a previous key still decrypts",
    );
  });

  test("embedded database without PAYLINK_SECRET_KEY: a key file is generated once, mode 0600, and reused", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "paylink-secret-"));
    dirs.push(dataDir);
    const first = resolveSecretKeyring({ secretKey: undefined, previousSecretKeys: [], databaseUrl: undefined, dataDir });
    assert.equal(first.source, "generated-file");
    assert.equal(statSync(first.file!).mode & 0o777, 0o600);
    assert.match(readFileSync(first.file!, "utf8"), /^[0-9a-f]{64}\n$/);
    const second = resolveSecretKeyring({ secretKey: undefined, previousSecretKeys: [], databaseUrl: undefined, dataDir });
    assert.equal(second.source, "file");
    assert.equal(second.keyring.currentKeyId, first.keyring.currentKeyId);
    writeFileSync(first.file!, "garbage");
    assert.throws(
      () => resolveSecretKeyring({ secretKey: undefined, previousSecretKeys: [], databaseUrl: undefined, dataDir }),
      ConfigError,
    );
    // The variable wins over the file.
    assert.equal(resolveSecretKeyring({ secretKey: KEY_A, previousSecretKeys: [], databaseUrl: undefined, dataDir }).source, "environment");
  });

  test("PostgreSQL without PAYLINK_SECRET_KEY is a configuration error that says what to do", () => {
    assert.throws(
      () =>
        resolveSecretKeyring({ secretKey: undefined, previousSecretKeys: [], databaseUrl: "postgres://x@h/db", dataDir: "/nonexistent" }),
      (error: Error) =>
        error instanceof ConfigError &&
        /PAYLINK_SECRET_KEY must be set when DATABASE_URL is set/.test(error.message) &&
        /openssl rand -hex 32/.test(error.message),
    );
  });

  for (const backend of testBackends()) {
    test(`stored secrets (${backend.name}): never in clear; a wrong key stops the start; a previous key is re-encrypted`, async () => {
      const database = await backend.open();
      try {
        const keyA = new SecretKeyring(KEY_A);
        const { merchantId } = await createMerchant(database.db, "m");
        const { endpoint, secrets } = await createWebhookEndpoint(database.db, keyA, merchantId, {
          url: "https://shop.example/hook",
          apiKey: "Bearer plain-api-key",
        });
        // A user's two-factor secret is sealed under the same keyring and rotates with it.
        const { userId } = await createPortalUser(database.db, merchantId, "totp@example.com", "scrypt$x", "viewer");
        const twoFactor = { db: database.db, keyring: keyA, now: () => new Date() };
        await startTwoFactorEnrolment(twoFactor, userId);
        const { secret } = await readTotpSecret(twoFactor, userId);
        const raw = await database.db
          .selectFrom("webhook_endpoints")
          .selectAll()
          .where("id", "=", endpoint.webhookId)
          .executeTakeFirstOrThrow();
        assert.ok(!raw.api_key.includes("plain-api-key"));
        assert.ok(!raw.hmac_key.includes(secrets.hmacKey));
        assert.equal(await checkStoredSecrets(database.db, keyA), 0);

        await assert.rejects(
          checkStoredSecrets(database.db, new SecretKeyring(KEY_B)),
          (error: Error) => error instanceof ConfigError && /PAYLINK_SECRET_KEY_PREVIOUS/.test(error.message),
        );

        const rotated = new SecretKeyring(KEY_B, [KEY_A]);
        assert.equal(await checkStoredSecrets(database.db, rotated), 2, "the endpoint and the two-factor secret");
        assert.equal(await checkStoredSecrets(database.db, new SecretKeyring(KEY_B)), 0, "now under the new key alone");
        assert.deepEqual(await revealWebhookSecrets(database.db, new SecretKeyring(KEY_B), merchantId, endpoint.webhookId), secrets);
        assert.equal((await readTotpSecret({ ...twoFactor, keyring: new SecretKeyring(KEY_B) }, userId)).secret, secret);
      } finally {
        await database.destroy();
      }
    });
  }
});
