// A payfacReference names one payment, across link sales and saved-card charges (docs/decisions.md
// docs/decisions.md#payfac-reference): the database holds each once (table payfac_references, written with the processor's
// answer), migration 0019 registers the references of existing payments, and an answer that
// reuses a held reference never becomes a second payment.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { migrate } from "../../src/db/migrate.ts";
import type { AuthorizeRequest, AuthorizeResult, TokenChargeRequest } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { charge, saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { cardFields, createLink, pay } from "../support/shopper.ts";

/** The sandbox, except that it can be made to answer with a reference of the test's choosing (a processor bug). */
class ReusedReferences extends SandboxProcessor {
  reference: string | undefined;
  override async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const result = await super.authorize(request);
    return this.reference ? { ...result, payfacReference: this.reference } : result;
  }
  override async chargeToken(request: TokenChargeRequest): Promise<AuthorizeResult> {
    const result = await super.chargeToken(request);
    return this.reference ? { ...result, payfacReference: this.reference } : result;
  }
}

const MIGRATION = "0019_keys_with_effects_and_payfac_references.sql";

for (const backend of testBackends()) {
  describe(`payfacReference is unique across payments (${backend.name})`, () => {
    let server: TestServer;
    const processor = new ReusedReferences();
    before(async () => {
      server = await startTestServer({ backend, processor });
    });
    after(() => server?.close());

    const registered = async (reference: string) =>
      (await sql<{ source: string }>`SELECT source FROM payfac_references WHERE payfac_reference = ${reference}`.execute(server.db)).rows;

    it("every recorded answer registers its reference, a link sale's and a token charge's", async () => {
      const { payfacReference } = await sellLink(server, 5000);
      assert.deepEqual(await registered(payfacReference), [{ source: "link" }]);
      const charged = await charge(server, await saveCard(server));
      assertOk(charged);
      assert.deepEqual(await registered(charged.body.payfacReference), [{ source: "token" }]);
    });

    it("a token charge answered with a link sale's reference is reversed and answered 503 5002, never a second payment", async () => {
      const { payfacReference } = await sellLink(server, 5000);
      const token = await saveCard(server);
      processor.reference = payfacReference;
      const answer = await charge(server, token);
      processor.reference = undefined;
      assertError(answer, 503, "5002");
      const [row] = await server.db.selectFrom("token_payments").selectAll().where("token", "=", token).execute();
      assert.equal(row!.state, "failed", "recorded failed once the processor confirmed the reversal");
      assert.equal(row!.payfac_reference, null);
      assert.ok(processor.reversed.has(row!.id), "reversed at the processor");
      const read = await server.api("GET", `/api/v1/payments/${payfacReference}`);
      assertOk(read);
      assert.equal(read.body.payment.paymentLinkReference !== null, true, "the reference still names the link sale");
      assert.deepEqual(await registered(payfacReference), [{ source: "link" }]);
    });

    it("a link sale answered with a token charge's reference is not recorded: the attempt stays unknown for the reconciler", async () => {
      const charged = await charge(server, await saveCard(server));
      assertOk(charged);
      const reference = await createLink(server, { amount: 5000 });
      processor.reference = charged.body.payfacReference;
      const paid = await pay(server.baseUrl, reference, cardFields());
      processor.reference = undefined;
      assert.equal(paid.status, 202, "answered 'not confirmed', as an attempt whose outcome is unknown");
      const [submission] = await server.db.selectFrom("submissions").selectAll().where("link_reference", "=", reference).execute();
      assert.notEqual(submission!.state, "approved");
      assert.equal(submission!.payfac_reference, null, "the answer was not recorded: the attempt stays for the reconciler");
      assert.deepEqual(await registered(charged.body.payfacReference), [{ source: "token" }]);
    });

    it("migration 0019 registers the references of payments made before it, each once, even one two payments share", async () => {
      const sale = await sellLink(server, 5000);
      const charged = await charge(server, await saveCard(server));
      assertOk(charged);
      const other = await charge(server, await saveCard(server));
      assertOk(other);
      // Back to the database as it was before 0019, with a duplicate only chance could have made.
      await sql`DROP TABLE payfac_references`.execute(server.db);
      await sql`DROP INDEX idempotency_keys_by_charge`.execute(server.db);
      await sql`ALTER TABLE idempotency_keys DROP COLUMN claim_token`.execute(server.db);
      await sql`ALTER TABLE idempotency_keys DROP COLUMN charge_reference`.execute(server.db);
      await sql`DELETE FROM schema_migrations WHERE name = ${MIGRATION}`.execute(server.db);
      await sql`UPDATE token_payments SET payfac_reference = ${sale.payfacReference} WHERE payfac_reference = ${other.body.payfacReference}`.execute(
        server.db,
      );

      assert.deepEqual(await migrate(server.db), [MIGRATION]);
      const { rows } = await sql<{ all: number; distinct: number }>`
        SELECT (SELECT count(*)::int FROM payfac_references) AS all,
               (SELECT count(DISTINCT payfac_reference)::int FROM (
                  SELECT payfac_reference FROM submissions WHERE payfac_reference IS NOT NULL
                  UNION ALL SELECT payfac_reference FROM token_payments WHERE payfac_reference IS NOT NULL) r) AS distinct`.execute(
        server.db,
      );
      assert.ok(rows[0]!.all > 0);
      assert.equal(rows[0]!.all, rows[0]!.distinct, "every reference once");
      assert.equal((await registered(sale.payfacReference)).length, 1);
      assert.equal((await registered(charged.body.payfacReference)).length, 1);
    });
  });
}
