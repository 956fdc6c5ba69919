// The API's read of one link: the link, its submissions and what is refunded of each, in one
// statement (D-182). Three round trips were most of a get's cost; one statement also reads the
// three from one snapshot.
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
// time formatted here (D-222): building objects with key names and formatting the time with
// to_char were two thirds of PostgreSQL's CPU for this statement, where a tuple and one Date
// cost the driver little. A timestamp in JSON carries its offset, so the instant does not depend
// on the session's time zone (json-timestamp.ts reads it). A prepared
// statement on PostgreSQL (db/prepared.ts), so its columns are named.
const LINK_WITH_SUBMISSIONS = preparedStatement(
  "api_link_with_submissions",
  `SELECT ${LINK_RECORD_COLUMNS.map((column) => `l.${column}`).join(", ")}, (
     SELECT coalesce(json_agg(json_build_array(
              s.id, s.answers, s.completed, s.amount, s.currency, s.token, s.payfac_reference,
              coalesce(r.refunded_amount, 0), s.created_at
            ) ORDER BY s.created_at, s.id), '[]'::json)
     FROM submissions s LEFT JOIN refund_balances r ON r.payfac_reference = s.payfac_reference
     WHERE s.link_reference = l.reference
   ) AS submissions_json
   FROM payment_links l
   WHERE l.reference = $1 AND l.merchant_id = $2`,
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

/** A merchant's link with its submissions, oldest first; another merchant's link is reported as missing. */
export async function findLinkWithSubmissions(
  db: Database,
  merchantId: string,
  reference: string,
): Promise<{ link: PaymentLinkRecord; submissions: LinkSubmission[] } | undefined> {
  const { rows } = await runPrepared<LinkRecordRow & { submissions_json: SubmissionTuple[] }>(db, LINK_WITH_SUBMISSIONS, [
    reference,
    merchantId,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  return { link: toRecord(row), submissions: row.submissions_json.map(toLinkSubmission) };
}
