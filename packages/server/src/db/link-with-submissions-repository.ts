// The API's read of one link: the link, its submissions and what is refunded of each, in one
// statement (docs/decisions.md#speed-is-guarded). Three round trips were most of a get's cost; one statement also reads the
// three from one snapshot. A link with more submissions than one statement should carry is read
// again in batches, in one snapshot too (docs/decisions.md#big-link-reads).
import { sql } from "kysely";
import type { Database } from "./connect.ts";
import { isoMillisFromJson } from "./json-timestamp.ts";
import { LINK_RECORD_COLUMNS, type LinkRecordRow, type PaymentLinkRecord, toRecord } from "./links-repository.ts";
import { preparedStatement, runPrepared } from "./prepared.ts";
import type { Answer } from "./submissions-repository.ts";

/** A submission exactly as the API's link read shows it (built by the statement, in the wire's key order). */
export interface LinkSubmission {
  checkoutReference: string;
  answers: Answer[];
  completed: boolean;
  amount: number;
  currency: string;
  token: string | null;
  payfacReference: string | null;
  /** What is refunded of this payment so far (0 when nothing, or no payment). */
  refundedAmount: number;
  /** ISO 8601 in UTC to the millisecond, ending in Z. */
  createdAt: string;
}

// Each submission comes as a JSON array of its values in the wire's order, and is named and its
// time formatted here: building objects with key names and formatting the time with
// to_char were two thirds of PostgreSQL's CPU for this statement, where a tuple and one Date
// cost the driver little. A timestamp in JSON carries its offset, so the instant does not depend
// on the session's time zone (json-timestamp.ts reads it). A prepared
// statement on PostgreSQL (db/prepared.ts), so its columns are named, and the link is found by its
// reference alone, its merchant checked as a filter (`IS TRUE`, docs/decisions.md#named-statements).
//
// It reads at most one more than SUBMISSIONS_AT_ONCE submissions, any of them (no order before
// the limit, so no sort beyond the aggregate's): all of them when there are no more than that,
// and otherwise enough to know the link must be read in batches.
export const SUBMISSIONS_AT_ONCE = 1_000;

/** The tuple of each submission in `s` (a row of submissions), with its refunded sum from `r`. */
const SUBMISSION_TUPLE = `json_build_array(
  s.id, s.answers, s.completed, s.amount, s.currency, s.token, s.payfac_reference,
  coalesce(r.refunded_amount, 0), s.created_at
)`;
const SUBMISSION_COLUMNS = "id, answers, completed, amount, currency, token, payfac_reference, created_at";

const LINK_WITH_SUBMISSIONS = preparedStatement(
  "api_link_with_submissions",
  `SELECT ${LINK_RECORD_COLUMNS.map((column) => `l.${column}`).join(", ")}, (
     SELECT coalesce(json_agg(${SUBMISSION_TUPLE} ORDER BY s.created_at, s.id), '[]'::json)
     FROM (SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE link_reference = l.reference LIMIT ${SUBMISSIONS_AT_ONCE + 1}) s
     LEFT JOIN refund_balances r ON r.payfac_reference = s.payfac_reference
   ) AS submissions_json
   FROM payment_links l
   WHERE l.reference = $1 AND (l.merchant_id = $2) IS TRUE`,
);

/** One submission as the statement sends it: the LinkSubmission's values in its key order. */
type SubmissionTuple = [string, Answer[], boolean, number, string, string | null, string | null, number, string];

function toLinkSubmission(t: SubmissionTuple): LinkSubmission {
  return {
    checkoutReference: t[0],
    answers: t[1],
    completed: t[2],
    amount: t[3],
    currency: t[4],
    token: t[5],
    payfacReference: t[6],
    refundedAmount: t[7],
    createdAt: isoMillisFromJson(t[8]),
  };
}

/**
 * A merchant's link with its submissions, oldest first; another merchant's link is reported as
 * missing. `submissions` is undefined when the link has more than SUBMISSIONS_AT_ONCE: read it
 * with readLinkInBatches.
 */
export async function findLinkWithSubmissions(
  db: Database,
  merchantId: string,
  reference: string,
): Promise<{ link: PaymentLinkRecord; submissions: LinkSubmission[] | undefined } | undefined> {
  const { rows } = await runPrepared<LinkRecordRow & { submissions_json: SubmissionTuple[] }>(db, LINK_WITH_SUBMISSIONS, [
    reference,
    merchantId,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  const tuples = row.submissions_json;
  return { link: toRecord(row), submissions: tuples.length > SUBMISSIONS_AT_ONCE ? undefined : tuples.map(toLinkSubmission) };
}

/**
 * A merchant's link and all its submissions, oldest first, from one snapshot (a repeatable-read,
 * read-only transaction on PostgreSQL; on PGlite a transaction, during which the serialized
 * dialect lets no one else at the one session), the submissions handed to `onBatch`
 * SUBMISSIONS_AT_ONCE at a time: each batch is one statement, so the process never holds more than
 * one batch's rows, and other requests run between batches. Undefined for another merchant's
 * link. Once `stop` is aborted (the client left) the read ends with its reason, rolled back.
 */
export async function readLinkInBatches(
  db: Database,
  merchantId: string,
  reference: string,
  stop: AbortSignal,
  onBatch: (submissions: LinkSubmission[]) => void | Promise<void>,
): Promise<PaymentLinkRecord | undefined> {
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .setAccessMode("read only")
    .execute(async (trx) => {
      const row = await trx
        .selectFrom("payment_links")
        .select(LINK_RECORD_COLUMNS)
        .where("reference", "=", reference)
        .where("merchant_id", "=", merchantId)
        .executeTakeFirst();
      if (!row) return undefined;
      stop.throwIfAborted();
      // Each batch must walk the link's submissions in order from where the last stopped, and stop
      // after a batch. Without statistics on submissions (PGlite never gathers them, and a young
      // or unvacuumed table has none) the planner expects a few rows and reads all of the link's
      // into a bitmap and sorts them for every batch: 42 ms a batch at 100,000 submissions, where
      // the walk takes 1.2 ms.
      await sql`SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`.execute(trx);
      // The batches follow (created_at, id), the order the API shows; each starts after the last
      // submission of the one before.
      let after: { createdAt: string; id: string } = { createdAt: "-infinity", id: "" };
      for (;;) {
        const { rows } = await sql<{ tuples: SubmissionTuple[] | null }>`
          SELECT json_agg(${sql.raw(SUBMISSION_TUPLE)} ORDER BY s.created_at, s.id) AS tuples
          FROM (SELECT ${sql.raw(SUBMISSION_COLUMNS)} FROM submissions
                WHERE link_reference = ${reference}
                  AND created_at >= ${after.createdAt}::timestamptz
                  AND (created_at, id) > (${after.createdAt}::timestamptz, ${after.id})
                ORDER BY created_at, id
                LIMIT ${SUBMISSIONS_AT_ONCE}) s
          LEFT JOIN refund_balances r ON r.payfac_reference = s.payfac_reference`.execute(trx);
        const tuples = rows[0]?.tuples ?? [];
        if (tuples.length > 0) await onBatch(tuples.map(toLinkSubmission));
        if (tuples.length < SUBMISSIONS_AT_ONCE) return toRecord(row);
        const last = tuples.at(-1)!;
        after = { createdAt: last[8], id: last[0] };
        // Let waiting I/O run between batches: PGlite answers in the same thread, and without
        // this turn of the event loop the batches ran back to back as one long task (a /healthz
        // waited the whole read, 1.3 s at 100,000 submissions).
        await new Promise((resolve) => setImmediate(resolve));
        stop.throwIfAborted();
      }
    });
}
