// What the portal reads about a merchant's payments: every finished payment, whether a sale through
// one of its links (a submission) or a charge of one of its saved cards (a token payment), a page
// at a time or one by its reference (the overview's sums are in portal-overview-repository.ts).
// Read-only; every query is scoped to one merchant.
import { type Kysely, sql } from "kysely";
import { shopperEmailOf } from "../domain/payments/shopper-email.ts";
import type { Database } from "./connect.ts";
import { pageTotal } from "./page-total.ts";
import { PAYMENT_FACT_COLUMNS, type PaymentFactColumns, type PaymentFacts, paymentFactsOf } from "./payment-facts.ts";
import type { DB } from "./schema.ts";
import type { Answer } from "./submissions-repository.ts";

/** Payments a merchant should see: pending ones have no result yet, abandoned ones never became one. */
export const FINISHED_STATES = ["approved", "declined", "failed"] as const;
export const PAYMENT_SOURCES = ["link", "token"] as const;
export type PaymentSource = (typeof PAYMENT_SOURCES)[number];

export interface PaymentRow extends PaymentFacts {
  /** "link": a sale through a payment link; "token": a charge of a saved card (POST /payment). */
  source: PaymentSource;
  checkoutReference: string;
  /** The link of a link sale; null for a token payment and a session's payment. */
  linkReference: string | null;
  /** The link's description; "" for a token payment. */
  linkDescription: string;
  /** The merchant's own reference of a token payment, the order id of a session's payment; null for a link sale. */
  merchantReference: string | null;
  amount: number;
  currency: string;
  state: string;
  /** The shopper's answers to the link's fields; none for a token payment. */
  answers: Answer[];
  /** A session's shopperContact or the e-mail typed into the form (domain/payments/shopper-email.ts). */
  shopperEmail: string | null;
  createdAt: Date;
}

export interface PaymentFilter {
  /** Inclusive lower bound of created_at. */
  from?: Date | undefined;
  /** Exclusive upper bound of created_at. */
  to?: Date | undefined;
  state?: (typeof FINISHED_STATES)[number] | undefined;
  source?: PaymentSource | undefined;
  /**
   * Part of a reference (checkout, payfac, link or session, the merchant's own, a session's order
   * id), of the link's description or of the shopper's answers (e-mail, name) or contact; four
   * digits also find the card's last four.
   */
  search?: string | undefined;
}

/** Both kinds of payment in one shape of columns, each side filtered before they are joined. */
function paymentsUnion(db: Kysely<DB>, merchantId: string, filter: PaymentFilter) {
  const pattern = filter.search ? `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  let links = db
    .selectFrom("submissions as s")
    .innerJoin("payment_links as l", "l.reference", "s.link_reference")
    .where("l.merchant_id", "=", merchantId)
    .where("s.state", "in", filter.state ? [filter.state] : [...FINISHED_STATES])
    .select([
      sql<PaymentSource>`'link'`.as("source"),
      "s.id",
      // A hosted-checkout session's payment is shown by its order id: sessions have no link page.
      sql<string | null>`CASE WHEN l.kind = 'session' THEN NULL ELSE s.link_reference END`.as("link_reference"),
      "l.description as link_description",
      sql<string | null>`l.order_reference`.as("merchant_reference"),
      "s.amount",
      "s.currency",
      "s.state",
      sql<Answer[]>`s.answers`.as("answers"),
      "l.shopper_contact",
      ...PAYMENT_FACT_COLUMNS.map((column) => `s.${column}` as const),
      "s.created_at",
    ]);
  let tokens = db
    .selectFrom("token_payments as t")
    .where("t.merchant_id", "=", merchantId)
    .where("t.state", "in", filter.state ? [filter.state] : [...FINISHED_STATES])
    .select([
      sql<PaymentSource>`'token'`.as("source"),
      "t.id",
      sql<string | null>`NULL::text`.as("link_reference"),
      sql<string>`''::text`.as("link_description"),
      sql<string | null>`t.merchant_reference`.as("merchant_reference"),
      "t.amount",
      "t.currency",
      "t.state",
      sql<Answer[]>`'[]'::jsonb`.as("answers"),
      sql<string | null>`NULL::text`.as("shopper_contact"),
      ...PAYMENT_FACT_COLUMNS.map((column) => `t.${column}` as const),
      "t.created_at",
    ]);
  if (filter.from) {
    links = links.where("s.created_at", ">=", filter.from);
    tokens = tokens.where("t.created_at", ">=", filter.from);
  }
  if (filter.to) {
    links = links.where("s.created_at", "<", filter.to);
    tokens = tokens.where("t.created_at", "<", filter.to);
  }
  if (pattern && filter.search) {
    const lastFour = /^\d{4}$/.test(filter.search) ? filter.search : null;
    links = links.where((eb) =>
      eb.or([
        ...["s.id", "s.payfac_reference", "s.link_reference", "l.description", "l.order_reference", "l.shopper_contact"].map((c) =>
          eb(eb.ref(c as "s.id"), "ilike", pattern),
        ),
        // The answers' values (e-mail, name, phone), not their field names.
        eb(sql`jsonb_path_query_array(s.answers, '$[*].value')::text`, "ilike", pattern),
        ...(lastFour ? [eb("s.card_last4", "=", lastFour)] : []),
      ]),
    );
    tokens = tokens.where((eb) =>
      eb.or([
        ...["t.id", "t.payfac_reference", "t.merchant_reference"].map((c) => eb(eb.ref(c as "t.id"), "ilike", pattern)),
        ...(lastFour ? [eb("t.card_last4", "=", lastFour)] : []),
      ]),
    );
  }
  return filter.source === "link" ? links : filter.source === "token" ? tokens : links.unionAll(tokens);
}

function paymentsQuery(db: Kysely<DB>, merchantId: string, filter: PaymentFilter) {
  return db.selectFrom(paymentsUnion(db, merchantId, filter).as("p"));
}

/** A row of paymentsQuery. */
interface PaymentColumns extends PaymentFactColumns {
  source: PaymentSource;
  id: string;
  link_reference: string | null;
  link_description: string;
  merchant_reference: string | null;
  amount: number | string;
  currency: string;
  state: string;
  answers: Answer[];
  shopper_contact: string | null;
  created_at: Date | string;
}

function toPaymentRow(row: PaymentColumns): PaymentRow {
  return {
    ...paymentFactsOf(row),
    source: row.source,
    checkoutReference: row.id,
    linkReference: row.link_reference,
    linkDescription: row.link_description,
    merchantReference: row.merchant_reference,
    amount: Number(row.amount),
    currency: row.currency,
    state: row.state,
    answers: row.answers,
    shopperEmail: shopperEmailOf(row.answers, row.shopper_contact),
    createdAt: new Date(row.created_at),
  };
}

/**
 * A page of payments, newest first, and the number of all that match, in one statement. The page
 * is chosen on the narrow columns alone (reference and time), which the partial indexes of
 * migration 0023 hold: without a search the scans read no table row, the sort keeps only the page
 * (no window over every match) and the count is a second index-only pass (docs/decisions.md#portal-payments). Then only the
 * page's rows are read, by their primary keys.
 */
export async function listPayments(
  db: Database,
  merchantId: string,
  filter: PaymentFilter,
  page: { offset: number; limit: number },
): Promise<{ payments: PaymentRow[]; totalCount: number }> {
  const query = paymentsQuery(db, merchantId, filter);
  const keys = await query
    .select((eb) => [
      "p.id",
      eb
        .selectFrom(paymentsUnion(db, merchantId, filter).as("c"))
        .select(sql<string>`count(*)`.as("count"))
        .as("total_count"),
    ])
    .orderBy("p.created_at", "desc")
    .orderBy("p.id", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(
    keys.map((key) => ({ total_count: key.total_count ?? 0 })),
    () => query.select(sql<string>`count(*)`.as("count")).executeTakeFirstOrThrow(),
  );
  if (keys.length === 0) return { totalCount, payments: [] };
  const rows = await paymentsQuery(db, merchantId, {})
    .selectAll("p")
    .where(
      "p.id",
      "in",
      keys.map((key) => key.id),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, toPaymentRow(row)]));
  return { totalCount, payments: keys.flatMap((key) => byId.get(key.id) ?? []) };
}

/** One payment (link sale or token payment) of this merchant by its checkoutReference; another merchant's is undefined. */
export async function findPayment(db: Database, merchantId: string, checkoutReference: string): Promise<PaymentRow | undefined> {
  const row = await paymentsQuery(db, merchantId, {}).selectAll("p").where("p.id", "=", checkoutReference).executeTakeFirst();
  return row && toPaymentRow(row);
}

/**
 * Where a walk through a merchant's payments stopped: the last row's time in microseconds since
 * the epoch (a Date holds only milliseconds, and two payments a microsecond apart must not be
 * skipped or read twice) and its reference.
 */
export interface PaymentsCursor {
  createdMicros: string;
  id: string;
}

/**
 * Up to `limit` payments older than `after` (newest first, the reference breaking a tie), without
 * a count, and the cursor to go on from. The CSV walks a merchant's payments with it: each batch
 * is a short statement of its own, so a long download holds no transaction and no connection
 * between batches, and a payment that arrives meanwhile moves nothing (an offset would repeat a
 * row for each new one).
 */
export async function paymentsAfter(
  db: Database,
  merchantId: string,
  filter: PaymentFilter,
  after: PaymentsCursor | undefined,
  limit: number,
): Promise<{ payments: PaymentRow[]; next: PaymentsCursor | undefined }> {
  let query = paymentsQuery(db, merchantId, filter)
    .selectAll("p")
    .select(sql<string>`(extract(epoch FROM p.created_at) * 1000000)::bigint::text`.as("created_micros"));
  if (after)
    query = query.where(
      sql<boolean>`(p.created_at, p.id) < (timestamptz 'epoch' + ${after.createdMicros}::bigint * interval '1 microsecond', ${after.id}::text)`,
    );
  const rows = await query.orderBy("p.created_at", "desc").orderBy("p.id", "desc").limit(limit).execute();
  const last = rows.at(-1);
  return {
    payments: rows.map(toPaymentRow),
    next: rows.length === limit && last ? { createdMicros: last.created_micros, id: last.id } : undefined,
  };
}
