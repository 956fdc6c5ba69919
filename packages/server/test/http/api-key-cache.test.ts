// The API keys each process remembers (docs/decisions.md#keys-passwords-sessions): a revoke through this process is refused at once;
// a revoke through another instance, or by hand in SQL, within about a second; "last used" is
// still written; a remembered key costs no statement.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { API_KEY_CACHE_TRUST_MS } from "../../src/db/api-key-cache.ts";
import { createApiKey, findMerchantIdByApiKey, revokeApiKey } from "../../src/db/merchants-repository.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";

async function statusWith(server: TestServer, apiKey: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}/api/v1/paymentlinks?pageSize=1`, { headers: { "x-api-key": apiKey } });
  await response.arrayBuffer();
  return response.status;
}

/** Polls until the key is refused, for at most `limitMs`; returns how long that took. */
async function refusedWithin(server: TestServer, apiKey: string, limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if ((await statusWith(server, apiKey)) === 401) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`the revoked key was still accepted after ${limitMs} ms`);
}

for (const backend of testBackends()) {
  describe(`API keys remembered by each process (${backend.name})`, () => {
    let server: TestServer;
    let second: TestServer | undefined;
    before(async () => {
      server = await startTestServer({ backend });
      if (backend.name === "postgres") second = await startSecondInstance(server);
    });
    after(async () => {
      await second?.close();
      await server.close();
    });

    test("a known key is looked up once, then answered from memory", async () => {
      const { apiKey } = await createApiKey(server.db, server.merchantId, "remembered");
      assert.equal(await findMerchantIdByApiKey(server.db, apiKey), server.merchantId);
      let statements = 0;
      const counting = server.db.withPlugin({
        transformQuery: (args) => {
          statements++;
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
      // A wrapped handle is another object, so it starts with a cache of its own.
      await findMerchantIdByApiKey(counting, apiKey);
      assert.ok(statements >= 1, "a new handle has its own cache and asks the database");
      statements = 0;
      assert.equal(await findMerchantIdByApiKey(counting, apiKey), server.merchantId);
      assert.equal(statements, 0, "the second lookup within the trust period costs no statement");
      await new Promise((resolve) => setTimeout(resolve, API_KEY_CACHE_TRUST_MS + 50));
      assert.equal(await findMerchantIdByApiKey(counting, apiKey), server.merchantId);
      assert.equal(statements, 1, "after the trust period: one read of the generation, no key lookup");
    });

    test("revoked through this process: refused at once, through the repository as through the admin API", async () => {
      const viaRepository = await createApiKey(server.db, server.merchantId, "to revoke");
      assert.equal(await statusWith(server, viaRepository.apiKey), 200);
      assert.equal(await revokeApiKey(server.db, server.merchantId, viaRepository.keyId), true);
      assert.equal(await statusWith(server, viaRepository.apiKey), 401);

      const viaAdmin = await createApiKey(server.db, server.merchantId, "to revoke by admin");
      assert.equal(await statusWith(server, viaAdmin.apiKey), 200);
      const response = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/apikeys/${viaAdmin.keyId}/revoke`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
      assert.equal(response.status, 200);
      assert.equal(await statusWith(server, viaAdmin.apiKey), 401);
    });

    test("revoked by hand in SQL: refused within about a second", async () => {
      const { apiKey, keyId } = await createApiKey(server.db, server.merchantId, "revoked in psql");
      assert.equal(await statusWith(server, apiKey), 200);
      await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId}`.execute(server.db);
      await refusedWithin(server, apiKey, API_KEY_CACHE_TRUST_MS * 5);
    });

    test("'last used' is still written for a remembered key", async () => {
      const { apiKey, keyId } = await createApiKey(server.db, server.merchantId, "used");
      assert.equal(await statusWith(server, apiKey), 200);
      const row = await server.db.selectFrom("api_keys").select("last_used_at").where("id", "=", keyId).executeTakeFirstOrThrow();
      assert.ok(row.last_used_at instanceof Date);
    });

    if (backend.name === "postgres") {
      test("revoked through another instance: refused by this one within about a second", async () => {
        const { apiKey, keyId } = await createApiKey(server.db, server.merchantId, "revoked elsewhere");
        assert.equal(await statusWith(server, apiKey), 200);
        assert.equal(await statusWith(second!, apiKey), 200);
        assert.equal(await revokeApiKey(second!.db, server.merchantId, keyId), true);
        assert.equal(await statusWith(second!, apiKey), 401, "the revoking instance refuses it at once");
        await refusedWithin(server, apiKey, API_KEY_CACHE_TRUST_MS * 5);
      });
    }
  });
}
