// GET /api/v1/paymentlinks/{reference} (docs/api.md#read): the link with its submissions read in
// one statement (docs/decisions.md#speed-is-guarded): oldest first (ties by checkoutReference), times in UTC to the millisecond
// whatever the session's time zone, and the fields of each submission as stored. A link with more
// submissions than one statement carries is read in batches from one snapshot (docs/decisions.md#big-link-reads), and its
// body is the same as the one statement's would be.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { readLinkInBatches, SUBMISSIONS_AT_ONCE } from "../../src/db/links-repository.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, getLink, payByLink } from "../support/fixtures.ts";
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

    it("a link with more submissions than one statement carries is read in batches: the same body, each submission once, in order", async () => {
      const reference = await createLink(server, payByLink(server));
      // Submissions n..m, seven to an instant, so that instants straddle the batches' edges (1,000
      // and 2,000) and the order inside one goes by the reference; every 97th was paid and has 100
      // of it refunded.
      const addSubmissions = (from: number, to: number) =>
        sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, completed, payfac_reference, created_at)
            SELECT 'big-' || ${reference} || '-' || lpad((7919 * g % 10007)::text, 5, '0'), ${reference},
                   jsonb_build_array(jsonb_build_object('field', 'Name', 'value', 'Shopper ' || g)), 48900, 'ISK', 'approved', true,
                   CASE WHEN g % 97 = 0 THEN 'pf-big-' || ${reference} || '-' || g END,
                   timestamptz '2026-05-01 12:00:00+00' + ((g + 3) / 7) * interval '1.5 ms'
            FROM generate_series(${from}::int, ${to}::int) g`.execute(server.db);
      const addRefunds = () =>
        sql`INSERT INTO refund_balances (payfac_reference, merchant_id, amount, currency, refunded_amount)
            SELECT payfac_reference, ${server.merchantId}, 48900, 'ISK', 100 FROM submissions
            WHERE link_reference = ${reference} AND payfac_reference IS NOT NULL ON CONFLICT DO NOTHING`.execute(server.db);
      const expectedOrder = async () =>
        (
          await sql<{ id: string }>`SELECT id FROM submissions WHERE link_reference = ${reference} ORDER BY created_at, id`.execute(
            server.db,
          )
        ).rows.map((row) => row.id);

      await addSubmissions(1, SUBMISSIONS_AT_ONCE);
      await addRefunds();
      const inOneStatement = await getLink(server, reference);
      assert.equal(inOneStatement.submissions.length, SUBMISSIONS_AT_ONCE);

      for (const total of [2 * SUBMISSIONS_AT_ONCE, 2 * SUBMISSIONS_AT_ONCE + 345]) {
        await addSubmissions(SUBMISSIONS_AT_ONCE + 1 + (total > 2 * SUBMISSIONS_AT_ONCE ? SUBMISSIONS_AT_ONCE : 0), total);
        await addRefunds();
        const response = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
        assert.equal(
          Number(response.headers.get("content-length")),
          Buffer.byteLength(JSON.stringify(response.body)),
          "its length, as the one statement's body has (the route's serialization has no spaces, as JSON.stringify)",
        );
        assert.equal(typeof response.body.responseIdentifier, "string");
        const inBatches = response.body.paymentLink;
        const { submissions, ...rest } = inBatches;
        const { submissions: firstThousand, ...restInOne } = inOneStatement;
        // The same link, its fields in the same order, as the route's own serializer writes them.
        assert.equal(JSON.stringify(rest), JSON.stringify(restInOne));
        assert.deepEqual(
          submissions.map((submission: { checkoutReference: string }) => submission.checkoutReference),
          await expectedOrder(),
          `${total}: every submission once, oldest first, ties by reference`,
        );
        // The thousand the one statement gave come again exactly, key order included.
        const inOne = new Map(
          firstThousand.map((submission: { checkoutReference: string }) => [submission.checkoutReference, JSON.stringify(submission)]),
        );
        const again = submissions.filter((submission: { checkoutReference: string }) => inOne.has(submission.checkoutReference));
        assert.equal(again.length, SUBMISSIONS_AT_ONCE);
        for (const submission of again) assert.equal(JSON.stringify(submission), inOne.get(submission.checkoutReference));
        const refunded = submissions.filter((submission: { refundedAmount: number }) => submission.refundedAmount === 100);
        assert.equal(refunded.length, Math.floor(total / 97), "each paid one carries its refunded sum");
      }

      // One snapshot, read a thousand at a time: a submission made while the first batch is in
      // hand is not in the later ones. (On PGlite the insert waits for the read's transaction.)
      const batches: number[] = [];
      let madeMeanwhile: Promise<unknown> | undefined;
      const link = await readLinkInBatches(server.db, server.merchantId, reference, new AbortController().signal, async (batch) => {
        batches.push(batch.length);
        if (madeMeanwhile) return;
        madeMeanwhile = addSubmissions(99_999, 99_999);
        if (backend.name === "postgres") await madeMeanwhile;
      });
      assert.equal(link?.reference, reference);
      assert.deepEqual(batches, [SUBMISSIONS_AT_ONCE, SUBMISSIONS_AT_ONCE, 345], "nothing from after the snapshot");
      await madeMeanwhile;
      assert.equal((await getLink(server, reference)).submissions.length, 2 * SUBMISSIONS_AT_ONCE + 346);
      // The read's planner settings ended with its transaction.
      const settings = await sql<{ bitmap: string; seq: string }>`
        SELECT current_setting('enable_bitmapscan') AS bitmap, current_setting('enable_seqscan') AS seq`.execute(server.db);
      assert.deepEqual(settings.rows[0], { bitmap: "on", seq: "on" });
      // A client that left stops the read: before it starts, or after the batch in hand.
      const left = new AbortController();
      left.abort(new Error("the client left"));
      await assert.rejects(
        readLinkInBatches(server.db, server.merchantId, reference, left.signal, () => assert.fail("read after the client left")),
        /the client left/,
      );
      const leaving = new AbortController();
      let batchesRead = 0;
      await assert.rejects(
        readLinkInBatches(server.db, server.merchantId, reference, leaving.signal, () => {
          batchesRead += 1;
          leaving.abort(new Error("the client left half-way"));
        }),
        /the client left half-way/,
      );
      assert.equal(batchesRead, 1);
      const other = await server.addMerchant();
      assert.equal(
        await readLinkInBatches(server.db, other.merchantId, reference, new AbortController().signal, () =>
          assert.fail("another merchant's"),
        ),
        undefined,
      );
      const foreign = await server.api("GET", `/api/v1/paymentlinks/${reference}`, undefined, { "x-api-key": other.apiKey });
      assert.equal(foreign.status, 404);
    });

    it("reads of big links wait their turn: one of a merchant's at a time, two waiting, the rest 429 3002; another merchant's goes ahead", async () => {
      // Big enough that one read outlasts the arrival of the requests sent with it (about 0.2 s on
      // PostgreSQL, longer on PGlite, against a few milliseconds between their arrivals).
      const many = 20_000;
      const addSubmissions = (reference: string, count: number) =>
        sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, completed, created_at)
            SELECT ${reference} || '-' || g, ${reference}, '[]', 48900, 'ISK', 'declined', false,
                   timestamptz '2026-05-01 12:00:00+00' + g * interval '1 ms'
            FROM generate_series(1, ${count}::int) g`.execute(server.db);
      const busy = await createLink(server, payByLink(server));
      await addSubmissions(busy, many);
      const other = await server.addMerchant();
      const othersLink = await createLink({ ...server, ...other }, payByLink(other));
      await addSubmissions(othersLink, SUBMISSIONS_AT_ONCE + 500);

      // Six at once from the merchant, one from the other merchant.
      const answers = await Promise.all([
        ...Array.from({ length: 6 }, () => server.api("GET", `/api/v1/paymentlinks/${busy}`)),
        server.api("GET", `/api/v1/paymentlinks/${othersLink}`, undefined, { "x-api-key": other.apiKey }),
      ]);
      const mine = answers.slice(0, 6);
      const read = mine.filter((answer) => answer.status === 200);
      const refused = mine.filter((answer) => answer.status === 429);
      assert.equal(read.length + refused.length, 6, `only 200 and 429: ${mine.map((answer) => answer.status)}`);
      // One reading and two waiting get their turn; the three beyond are refused at once. On PGlite
      // every statement waits for the one session, a read's whole transaction included, so a request
      // whose first statement queued behind the first read meets a shorter queue: 4 and 2 there.
      const statuses = mine.map((answer) => answer.status).join(",");
      if (backend.name === "postgres") assert.equal(refused.length, 3, `the merchant's reads beyond one and two waiting: ${statuses}`);
      else assert.ok(refused.length >= 1 && read.length >= 3, `some refused, at least three read: ${statuses}`);
      for (const answer of refused) {
        assertError(answer, 429, "3002", /already reading links with many submissions/);
        assert.equal(answer.headers.get("retry-after"), "5");
      }
      for (const answer of read) assert.equal(answer.body.paymentLink.submissions.length, many);
      assert.equal(answers[6]!.status, 200, "the other merchant's read is not held behind this merchant's");
      assert.equal(answers[6]!.body.paymentLink.submissions.length, SUBMISSIONS_AT_ONCE + 500);
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
