// Card numbers and CVCs are never stored or logged (docs/checkout.md#card-data): after payments of every kind, a
// dump of every table and every log line (at the most verbose level) hold neither.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { createLogger } from "../../src/logging.ts";
import type { AuthorizeRequest, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint } from "../support/outbox.ts";
import { CARDS, createLink, futureExpiry, getPage, hiddenInputs, postForm } from "../support/shopper.ts";

/** The CVC every form posts. Four digits also occur by chance inside timestamps, UUIDs and hex
 * references, so the dump is searched for it as a value of its own (see `holdsCvc`). */
const CVC = "8317";
/** The CVC standing alone, which is how a stored or logged CVC appears (a JSON value, a form
 * field, a word in a message): not part of a longer run of digits or letters (`31.783170`), not a
 * group of a UUID (`…-8317-…`), not the fraction of a timestamp (`31.8317+00:00`). */
const CVC_ALONE = new RegExp(`(?<![0-9A-Za-z.-])${CVC}(?![0-9A-Za-z-])`);
const FAILING_CARD = "4012888888881881";

/** A processor whose failures quote the card, as a careless client library might. */
class LeakyFailingProcessor implements PaymentProcessor {
  readonly name = "leaky";
  readonly sandbox = new SandboxProcessor();
  async authorize(request: AuthorizeRequest) {
    if (request.card.number === FAILING_CARD) throw new Error(`gateway timeout for card ${request.card.number} cvc ${request.card.cvc}`);
    return this.sandbox.authorize(request);
  }
  cancel(reference: string) {
    return this.sandbox.cancel(reference);
  }
  reverseAttempt(checkoutReference: string) {
    return this.sandbox.reverseAttempt(checkoutReference);
  }
}

for (const backend of testBackends()) {
  describe(`no card data at rest or in logs (${backend.name})`, () => {
    let server: TestServer;
    const logLines: string[] = [];

    before(async () => {
      const stream = new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      });
      const logger = createLogger("trace", stream);
      server = await startTestServer({ backend, logger, processor: new LeakyFailingProcessor() });
      await addWebhookEndpoint(server);
    });
    after(() => server.close());

    it("after approvals, declines, card saving, validation errors, CSRF refusals and processor errors", async () => {
      const numbers = [CARDS.visa, CARDS.mastercard, CARDS.refused, CARDS.expired, CARDS.cvcDeclined, CARDS.other, FAILING_CARD];
      const payLink = await createLink(server, {
        recurringProcessingModel: "CardOnFile",
        shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
      });
      const tokenizeLink = await createLink(server, { type: "TokenizeByLink", amount: 0, items: [] });
      const post = async (reference: string, number: string, extra: Record<string, string> = {}) => {
        const page = await getPage(server.baseUrl, `/pay/${reference}`);
        return postForm(server.baseUrl, reference, {
          ...hiddenInputs(page.html),
          EmailAddress: "shopper@example.is",
          cardNumber: number.replace(/(\d{4})(?=\d)/g, "$1 "),
          cardExpiry: futureExpiry(),
          cardCvc: CVC,
          cardHolder: "Anna Jónsdóttir",
          ...extra,
        });
      };
      const statuses: number[] = [];
      for (const number of numbers) statuses.push((await post(payLink, number)).status);
      statuses.push((await post(payLink, CARDS.visa, { EmailAddress: "not-an-email" })).status);
      statuses.push((await post(payLink, CARDS.visa, { csrfToken: "forged" })).status);
      statuses.push((await post(payLink, `${CARDS.visa.slice(0, 15)}2`)).status);
      statuses.push((await post(tokenizeLink, CARDS.visa)).status);
      assert.deepEqual(statuses, [200, 200, 402, 402, 402, 200, 502, 422, 403, 422, 200]);

      const tables = await sql<{
        table_name: string;
      }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`.execute(server.database.db);
      assert.ok(tables.rows.some((t) => t.table_name === "submissions"));
      let dump = "";
      for (const { table_name } of tables.rows) {
        const rows = await sql.raw(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`).execute(server.database.db);
        dump += `${table_name}\n${rows.rows.map((r: any) => r.row).join("\n")}\n`;
      }
      const logs = logLines.join("");
      assert.ok(dump.includes("411111******1111"), "the masked number is kept");
      assert.ok(logs.length > 1000, "the logs were captured");
      // The processor failure is logged, usefully, with the digits masked.
      assert.ok(logs.includes("payment processor call failed"));
      assert.ok(logs.includes("gateway timeout for card # cvc #"));

      for (const [name, text] of [
        ["database", dump],
        ["logs", logs],
      ] as const) {
        for (const number of numbers) {
          assert.ok(!text.includes(number), `${name} holds ${number}`);
          assert.ok(!text.includes(number.replace(/(\d{4})(?=\d)/g, "$1 ")), `${name} holds ${number} with spaces`);
          assert.ok(!text.includes(number.replace(/(\d{4})(?=\d)/g, "$1+")), `${name} holds ${number} form-encoded`);
        }
        const cvcAt = text.search(CVC_ALONE);
        assert.ok(cvcAt === -1, `${name} holds the CVC: …${text.slice(Math.max(0, cvcAt - 80), cvcAt + 80)}…`);
      }
    });
  });
}
