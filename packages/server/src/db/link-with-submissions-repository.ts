// The API's read of one link: the link, its submissions and what is refunded of each, in one
// statement (D-182). Three round trips were most of a get's cost; one statement also reads the
// three from one snapshot.
import type { Database } from "./connect.ts";
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

// The submissions need no mapping in JavaScript: each is built here in its wire shape. The time is
// formatted from UTC explicitly (a timestamp's own text in JSON would follow the session's time
// zone), truncated to the millisecond like the driver's Dates. A prepared statement on PostgreSQL
// (db/prepared.ts), so its columns are named.
const LINK_WITH_SUBMISSIONS = preparedStatement(
  "api_link_with_submissions",
  `SELECT ${LINK_RECORD_COLUMNS.map((column) => `l.${column}`).join(", ")}, (
     SELECT coalesce(json_agg(json_build_object(
              'checkoutReference', s.id, 'answers', s.answers, 'completed', s.completed, 'amount', s.amount,
              'currency', s.currency, 'token', s.token, 'payfacReference', s.payfac_reference,
              'refundedAmount', coalesce(r.refunded_amount, 0),
              'createdAt', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
            ) ORDER BY s.created_at, s.id), '[]'::json)
     FROM submissions s LEFT JOIN refund_balances r ON r.payfac_reference = s.payfac_reference
     WHERE s.link_reference = l.reference
   ) AS submissions_json
   FROM payment_links l
   WHERE l.reference = $1 AND l.merchant_id = $2`,
);

/** A merchant's link with its submissions, oldest first; another merchant's link is reported as missing. */
export async function findLinkWithSubmissions(
  db: Database,
  merchantId: string,
  reference: string,
): Promise<{ link: PaymentLinkRecord; submissions: LinkSubmission[] } | undefined> {
  const { rows } = await runPrepared<LinkRecordRow & { submissions_json: LinkSubmission[] }>(db, LINK_WITH_SUBMISSIONS, [
    reference,
    merchantId,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  return { link: toRecord(row), submissions: row.submissions_json };
}
