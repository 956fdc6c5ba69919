// An Idempotency-Key's answer commits with the operation's own effect (docs/decisions.md docs/decisions.md#idempotency-keys): a
// request that stops after its effect (a process that died, a stall, the database going away
// before the answer was stored) never lets a retry with the same key refund or charge twice.
// The request is held at the card processor, the one place an operation waits after its first
// write; "two minutes later" (when a running key is taken over) is made by ageing the key's row.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { AuthorizeResult, ModificationRequest, ModificationResult, TokenChargeRequest } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { charge, refund, saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { type ApiResponse, startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { databaseAddress, startTcpProxy } from "../support/tcp-proxy.ts";
import { waitUntil } from "../support/wait.ts";

/** The sandbox, except that refunds and token charges can be held at the processor until released. */
class HeldProcessor extends SandboxProcessor {
  hold = false;
  refundCalls = 0;
  chargeCalls = 0;
  private waiting: Array<() => void> = [];
  release() {
    this.hold = false;
    for (const go of this.waiting.splice(0)) go();
  }
  private async gate() {
    if (this.hold) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  override async refund(request: ModificationRequest): Promise<ModificationResult> {
    this.refundCalls += 1;
    await this.gate();
    return super.refund(request);
  }
  override async chargeToken(request: TokenChargeRequest): Promise<AuthorizeResult> {
    this.chargeCalls += 1;
    await this.gate();
    return super.chargeToken(request);
  }
}

for (const backend of testBackends()) {
  describe(`Idempotency-Key answers commit with the effect (${backend.name})`, () => {
    let server: TestServer;
    const processor = new HeldProcessor();
    before(async () => {
      server = await startTestServer({ backend, afterSaleProcessor: processor });
    });
    after(async () => {
      processor.release();
      await server?.close();
    });

    /** As if the key's request had started ten minutes ago: past the two minutes after which a running key is taken over. */
    const age = (key: string) =>
      sql`UPDATE idempotency_keys SET created_at = now() - interval '10 minutes' WHERE key = ${key}`.execute(server.db);
    const refundsOf = (payfacReference: string) =>
      server.db
        .selectFrom("refunds")
        .select(["payfac_reference", "state"])
        .where("original_payfac_reference", "=", payfacReference)
        .execute();

    it("a refund stopped after its reservation: a retry with its key, even after two minutes, replays its answer and never refunds again", async () => {
      const { payfacReference } = await sellLink(server, 10000);
      const key = `stopped-refund-${backend.name}`;
      const calls = processor.refundCalls;
      processor.hold = true;
      const first = refund(server, payfacReference, 4000, { "idempotency-key": key });
      await waitUntil(async () => (await refundsOf(payfacReference)).length === 1, 10_000, "the refund to be reserved");
      await age(key);

      const retry = await refund(server, payfacReference, 4000, { "idempotency-key": key });
      assertOk(retry);
      assert.equal(retry.headers.get("idempotent-replayed"), "true", "the answer stored with the reservation is replayed");
      assert.equal((await refundsOf(payfacReference)).length, 1, "one refund, not two");
      assert.equal(processor.refundCalls, calls + 1, "the processor was asked once");

      processor.release();
      const answered = await first;
      assertOk(answered);
      assert.equal(answered.body.payfacReference, retry.body.payfacReference);
      assert.deepEqual(retry.body, answered.body, "the replay is the first answer");
      const [done] = await refundsOf(payfacReference);
      assert.equal(done!.state, "succeeded");
    });

    it("a token charge at the processor: a retry with its key is 409 3007 even after two minutes, then replays the one charge", async () => {
      const token = await saveCard(server);
      const key = `held-charge-${backend.name}`;
      const calls = processor.chargeCalls;
      const chargesOf = () => server.db.selectFrom("token_payments").select(["id", "state"]).where("token", "=", token).execute();
      processor.hold = true;
      const first = charge(server, token, {}, { "idempotency-key": key });
      await waitUntil(async () => (await chargesOf()).length === 1, 10_000, "the charge to be recorded pending");
      await age(key);

      assertError(await charge(server, token, {}, { "idempotency-key": key }), 409, "3007");
      assert.equal(processor.chargeCalls, calls + 1, "no second processor call while the first one's outcome is unknown");
      assert.equal((await chargesOf()).length, 1);

      processor.release();
      const answered = await first;
      assertOk(answered);
      assert.equal(answered.body.resultCode, "Authorised");
      const replay = await charge(server, token, {}, { "idempotency-key": key });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.body, answered.body);
      assert.equal((await chargesOf()).length, 1, "one charge");
      assert.equal(processor.chargeCalls, calls + 1);
    });

    it("a create answered with its link: the stored answer is the one sent, replayed as sent", async () => {
      const body = { type: "TokenizeByLink", terminalIdentifier: server.terminalIdentifier, amount: 0, currency: "ISK" };
      const key = `create-${backend.name}`;
      const first = await server.api("POST", "/api/v1/paymentlinks/create", body, { "idempotency-key": key });
      assertOk(first);
      const row = await sql<{ state: string; response_body: string }>`
        SELECT state, response_body FROM idempotency_keys WHERE key = ${key}`.execute(server.db);
      assert.equal(row.rows[0]!.state, "done");
      assert.deepEqual(JSON.parse(row.rows[0]!.response_body), first.body);
      const replay = await server.api("POST", "/api/v1/paymentlinks/create", body, { "idempotency-key": key });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.body, first.body);
    });
  });
}

const postgres = testBackends().find((backend) => backend.name === "postgres");

describe("a claim taken over cannot commit its effect (PostgreSQL)", { skip: postgres ? false : "TEST_DATABASE_URL is not set" }, () => {
  it("a create held mid-request whose key another request took over rolls back its link and answers 409 3007", async () => {
    const server = await startTestServer({ backend: postgres! });
    try {
      const body = { type: "TokenizeByLink", terminalIdentifier: server.terminalIdentifier, amount: 0, currency: "ISK" };
      const key = "taken-over";
      const links = async () =>
        Number(
          (await sql<{ n: string }>`SELECT count(*) AS n FROM payment_links WHERE merchant_id = ${server.merchantId}`.execute(server.db))
            .rows[0]!.n,
        );
      const before = await links();
      let first: Promise<ApiResponse> | undefined;
      // Hold the terminal row: the request claims its key, then waits on its INSERT's foreign key.
      await server.db.transaction().execute(async (trx) => {
        await sql`SELECT 1 FROM terminals WHERE terminal_identifier = ${server.terminalIdentifier} FOR UPDATE`.execute(trx);
        first = server.api("POST", "/api/v1/paymentlinks/create", body, { "idempotency-key": key });
        await waitUntil(
          async () => (await sql`SELECT 1 FROM idempotency_keys WHERE key = ${key}`.execute(server.db)).rows.length === 1,
          10_000,
          "the key to be claimed",
        );
        // What a retry does two minutes later: the claim becomes another request's.
        await sql`UPDATE idempotency_keys SET claim_token = 'another-request' WHERE key = ${key}`.execute(server.db);
      });
      assertError(await first!, 409, "3007");
      assert.equal(await links(), before, "the stale request's link was rolled back");
    } finally {
      await server.close();
    }
  });
});

describe("Idempotency-Key across a database outage (PostgreSQL)", { skip: postgres ? false : "TEST_DATABASE_URL is not set" }, () => {
  it("a refund whose database goes away while it is at the processor: its answer is kept, a retry replays it, one refund", async () => {
    const processor = new HeldProcessor();
    const direct = await startTestServer({ backend: postgres!, afterSaleProcessor: processor });
    const proxy = await startTcpProxy(databaseAddress(direct.database.url!));
    const server = await startSecondInstance(direct, {
      databaseUrl: proxy.urlThrough(direct.database.url!),
      afterSaleProcessor: processor,
    });
    try {
      const { payfacReference } = await sellLink(server, 10000);
      const key = "outage-refund";
      processor.hold = true;
      const first: Promise<ApiResponse> = refund(server, payfacReference, 4000, { "idempotency-key": key });
      const reserved = () => direct.db.selectFrom("refunds").selectAll().where("original_payfac_reference", "=", payfacReference).execute();
      await waitUntil(async () => (await reserved()).length === 1, 10_000, "the refund to be reserved");
      await proxy.refuse(); // the database goes away while the refund is at the processor
      processor.release();
      const answered = await first;
      await proxy.accept();

      const retry = await refund(server, payfacReference, 4000, { "idempotency-key": key });
      assertOk(retry);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      if (answered.status === 200) assert.deepEqual(retry.body, answered.body);
      const refunds = await reserved();
      assert.equal(refunds.length, 1, "one refund");
      assert.equal(processor.refundCalls, 1, "the processor was asked once");
    } finally {
      processor.release();
      await server.close();
      await proxy.close();
      await direct.close();
    }
  });
});
