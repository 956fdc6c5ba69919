// The common processor result in one statement (D-231): a pending attempt whose approval the link
// can still take, or a decline or failure. The submission's result, the link's counters, the
// payfacReference and the webhook outbox rows are written by one statement, which is its own
// transaction: they commit together or not at all, and the link's row, which every payment of the
// link updates, is held only while PostgreSQL runs the statement and writes its commit, never
// across a round trip to Paylink. The commit does not wait for the disk; the caller is answered
// only after waitUntilDurable (D-200).
//
// Anything else (an approval the link can no longer take, a submission no longer pending, or one
// that does not hold what the caller expects) writes nothing here and is left to recordResult's
// general path (reservations-repository.ts).
import type { Selectable } from "kysely";
import { NEW_DELIVERY_ID_TEXT } from "../ids.ts";
import type { Database } from "./connect.ts";
import { COMMIT_WITHOUT_WAITING_TEXT, waitUntilDurable } from "./durable-commit.ts";
import { PAYMENT_FACT_COLUMNS } from "./payment-facts.ts";
import { preparedStatement, runPrepared } from "./prepared.ts";
import { type ProcessorOutcome, type RecordedOutcome, resultColumns } from "./reservations-repository.ts";
import { SALE_CAP_TEXT } from "./sale-cap.ts";
import type { SubmissionsTable } from "./schema.ts";
import { type Answer, type SubmissionRecord, toSubmission } from "./submissions-repository.ts";

export interface CommonResult {
  checkoutReference: string;
  linkReference: string;
  merchantId: string;
  /** What the reservation wrote; the statement writes only while the pending row still holds exactly this. */
  pending: { amount: number; currency: string; answers: Answer[]; card: { brand: string; masked: string; last4: string; expiry: string } };
  outcome: ProcessorOutcome;
  now: Date;
  /** The webhook messages of the result, from the submission as the statement leaves it. */
  events: (submission: SubmissionRecord) => Array<{ eventType: string; message: unknown }>;
}

/** Every column of a submission, named: a prepared statement never returns `*` (db/prepared.ts). */
const SUBMISSION_COLUMNS: (keyof SubmissionsTable)[] = [
  "id",
  "link_reference",
  "answers",
  "amount",
  "currency",
  "state",
  "completed",
  "token",
  ...PAYMENT_FACT_COLUMNS,
  "created_at",
  "completed_at",
  "attempt_key",
  "cancel_pending",
];

/**
 * One outcome of each kind, only for the names of the columns resultColumns sets for it: the
 * statements take those names from resultColumns itself, so a column added there is written here too.
 */
const SAMPLE_OUTCOMES: { [K in ProcessorOutcome["kind"]]: Extract<ProcessorOutcome, { kind: K }> } = {
  approved: { kind: "approved", payfacReference: "", authCode: "", token: null, cardBrand: "", cardUsage: "" },
  declined: { kind: "declined", payfacReference: "", reason: "", cardBrand: "", cardUsage: "" },
  failed: { kind: "failed", reason: "" },
};

/** The statement of one kind of result, prepared on PostgreSQL (D-232). */
function resultStatement(kind: ProcessorOutcome["kind"]) {
  const columns = Object.keys(resultColumns(kind, SAMPLE_OUTCOMES[kind], null));
  // Parameters $1-$11 are common to every kind; the result's columns follow from $12.
  const set = columns.map((column, i) => `${column} = $${12 + i}`).join(", ");
  const slot =
    kind === "approved"
      ? `sales_count = sales_count + 1, reserved_count = reserved_count - 1
         WHERE reference = $2 AND sales_count < ${SALE_CAP_TEXT}
           AND NOT disabled AND (valid_until IS NULL OR valid_until > $8)`
      : "reserved_count = reserved_count - 1 WHERE reference = $2";
  // The submission is locked first, the link's row second: the order of every other writer of both.
  // It is found by its id alone; its link and state are checked as a filter (D-270).
  const text = `
    WITH pend AS (
      SELECT id FROM submissions
      WHERE id = $1 AND (link_reference = $2 AND state = 'pending') IS TRUE
        AND amount = $3 AND currency = $4 AND card_masked = $5
        AND card_last4 = $6 AND card_expiry = $7
        AND ${COMMIT_WITHOUT_WAITING_TEXT} IS NOT NULL
      FOR UPDATE
    ), slot AS (
      UPDATE payment_links SET ${slot} AND EXISTS (SELECT 1 FROM pend)
      RETURNING reference
    ), sub AS (
      UPDATE submissions SET ${set}, completed_at = $8
      WHERE id IN (SELECT id FROM pend) AND EXISTS (SELECT 1 FROM slot)
      RETURNING ${SUBMISSION_COLUMNS.join(", ")}
    ), ref AS (
      INSERT INTO payfac_references (payfac_reference, source, checkout_reference)
      SELECT $9, 'link', id FROM sub WHERE $9::text IS NOT NULL
    ), hooks AS (
      INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload)
      SELECT ${NEW_DELIVERY_ID_TEXT}, w.merchant_id, w.id, e.event ->> 'eventType', e.event -> 'message'
      FROM webhook_endpoints w CROSS JOIN jsonb_array_elements($10::jsonb) AS e(event)
      WHERE w.merchant_id = $11 AND w.enabled AND EXISTS (SELECT 1 FROM sub)
    )
    SELECT ${SUBMISSION_COLUMNS.join(", ")} FROM sub`;
  return { columns, prepared: preparedStatement(`checkout_record_${kind}`, text) };
}

const RESULT_STATEMENTS = {
  approved: resultStatement("approved"),
  declined: resultStatement("declined"),
  failed: resultStatement("failed"),
};

/**
 * Records the common result in one statement, on disk when this returns. Undefined when it is not
 * the common case (nothing written): the caller records the result through recordResult.
 */
export async function recordCommonResult(db: Database, input: CommonResult): Promise<RecordedOutcome | undefined> {
  const { checkoutReference, linkReference, pending, outcome, now } = input;
  const recorded = outcome.kind;
  const columns = resultColumns(recorded, outcome, null);
  // The row the statement leaves, as far as the messages read it (the card, amount and currency are
  // checked against the pending row below, the rest is written by the statement).
  const expected: Selectable<SubmissionsTable> = {
    id: checkoutReference,
    link_reference: linkReference,
    answers: pending.answers,
    amount: pending.amount,
    currency: pending.currency,
    token: null,
    payfac_reference: null,
    auth_code: null,
    card_brand: pending.card.brand,
    card_masked: pending.card.masked,
    card_last4: pending.card.last4,
    card_expiry: pending.card.expiry,
    card_usage: null,
    created_at: now,
    completed_at: now,
    attempt_key: null,
    cancel_pending: false,
    ...columns,
  };
  const events = input.events(toSubmission(expected));
  const payfacReference = "payfacReference" in outcome ? outcome.payfacReference : null;
  const statement = RESULT_STATEMENTS[recorded];
  const result = await runPrepared<Selectable<SubmissionsTable>>(db, statement.prepared, [
    checkoutReference,
    linkReference,
    pending.amount,
    pending.currency,
    pending.card.masked,
    pending.card.last4,
    pending.card.expiry,
    now,
    payfacReference,
    JSON.stringify(events),
    input.merchantId,
    ...statement.columns.map((column) => (columns as Record<string, unknown>)[column]),
  ]);
  const row = result.rows[0];
  if (!row) return undefined;
  await waitUntilDurable(db);
  return { recorded, submission: toSubmission(row), voidReason: null };
}
