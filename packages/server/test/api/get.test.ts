// GET /api/v1/paymentlinks/{reference} (docs/api.md#read): the link with its submissions read in
// one statement (D-182): oldest first (ties by checkoutReference), times in UTC to the millisecond
// whatever the session's time zone, and the fields of each submission as stored.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { testBackends } from "../support/databases.ts";
import { getLink, payByLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`get payment link (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server?.close());

    it("lists submissions oldest first with their stored fields, times truncated to the millisecond in UTC", async () => {
      const reference = await createLink(server, payByLink(server));
      const insert = (id: string, createdAt: string, extra: { token?: string; payfac?: string; completed?: boolean } = {}) =>
        sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, completed, token, payfac_reference, created_at)
            VALUES (${id}, ${reference}, ${JSON.stringify([{ field: "Name", value: id }])}, 48900, 'ISK', 'approved',
                    ${extra.completed ?? true}, ${extra.token ?? null}, ${extra.payfac ?? null}, ${createdAt}::timestamptz)`.execute(
          server.db,
        );
      // Inserted out of order; two share a time and are ordered by their reference.
      await insert("sub-c", "2026-03-04 05:06:07.999999+00", { token: "tok_1", payfac: `pf-${reference}` });
      await insert("sub-b", "2026-01-02 03:04:05.678901+02");
      await insert("sub-a", "2026-01-02 03:04:05.678901+02", { completed: false });
      await sql`SET TIME ZONE 'Pacific/Chatham'`.execute(server.db);
      const link = await getLink(server, reference);
      assert.deepEqual(link.submissions, [
        {
          checkoutReference: "sub-a",
          answers: [{ field: "Name", value: "sub-a" }],
          completed: false,
          amount: 48900,
          currency: "ISK",
          token: null,
          payfacReference: null,
          refundedAmount: 0,
          createdAt: "2026-01-02T01:04:05.678Z",
        },
        {
          checkoutReference: "sub-b",
          answers: [{ field: "Name", value: "sub-b" }],
          completed: true,
          amount: 48900,
          currency: "ISK",
          token: null,
          payfacReference: null,
          refundedAmount: 0,
          createdAt: "2026-01-02T01:04:05.678Z",
        },
        {
          checkoutReference: "sub-c",
          answers: [{ field: "Name", value: "sub-c" }],
          completed: true,
          amount: 48900,
          currency: "ISK",
          token: "tok_1",
          payfacReference: `pf-${reference}`,
          refundedAmount: 0,
          createdAt: "2026-03-04T05:06:07.999Z",
        },
      ]);
    });

    it("is another merchant's link: 404 2014, as if it did not exist", async () => {
      const reference = await createLink(server, payByLink(server));
      const other = await server.addMerchant();
      const response = await server.api("GET", `/api/v1/paymentlinks/${reference}`, undefined, { "x-api-key": other.apiKey });
      assert.equal(response.status, 404);
      assert.equal(response.body.errorCode, "2014");
    });
  });
}
