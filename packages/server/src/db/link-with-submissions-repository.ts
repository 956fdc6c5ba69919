// The API's read of one link: the link, its submissions and what is refunded of each, in one
// statement (D-182). Three round trips were most of a get's cost; one statement also reads the
// three from one snapshot.
import { type Selectable, sql } from "kysely";
import type { Database } from "./connect.ts";
import { type PaymentLinkRecord, toRecord } from "./links-repository.ts";
import type { PaymentLinksTable } from "./schema.ts";
import type { Answer } from "./submissions-repository.ts";

/** A submission as the API's link read shows it. */
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
  createdAt: Date;
}

type SubmissionJson = Omit<LinkSubmission, "createdAt"> & { createdAtMs: number };

/** A merchant's link with its submissions, oldest first; another merchant's link is reported as missing. */
export async function findLinkWithSubmissions(
  db: Database,
  merchantId: string,
  reference: string,
): Promise<{ link: PaymentLinkRecord; submissions: LinkSubmission[] } | undefined> {
  // Times travel as epoch milliseconds (truncated, as the driver's Dates are): a timestamp's text
  // inside JSON would depend on the session's time zone.
  const { rows } = await sql<Selectable<PaymentLinksTable> & { submissions_json: SubmissionJson[] }>`
    SELECT l.*, (
      SELECT coalesce(json_agg(json_build_object(
               'checkoutReference', s.id, 'answers', s.answers, 'completed', s.completed, 'amount', s.amount,
               'currency', s.currency, 'token', s.token, 'payfacReference', s.payfac_reference,
               'refundedAmount', coalesce(r.refunded_amount, 0),
               'createdAtMs', floor(extract(epoch FROM s.created_at) * 1000)
             ) ORDER BY s.created_at, s.id), '[]'::json)
      FROM submissions s LEFT JOIN refund_balances r ON r.payfac_reference = s.payfac_reference
      WHERE s.link_reference = l.reference
    ) AS submissions_json
    FROM payment_links l
    WHERE l.reference = ${reference} AND l.merchant_id = ${merchantId}
  `.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const submissions = row.submissions_json.map(({ createdAtMs, ...submission }) => ({
    ...submission,
    amount: Number(submission.amount),
    refundedAmount: Number(submission.refundedAmount),
    createdAt: new Date(Number(createdAtMs)),
  }));
  return { link: toRecord(row), submissions };
}
