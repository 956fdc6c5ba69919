// Payment links, and the list of a link's submissions. Link rows are turned into domain values here
// and nowhere else (the API's list of links: db/link-list-repository.ts).
import { type Selectable, sql, type Transaction } from "kysely";
import type { Culture, Item, LinkTerms, LinkType, RecurringProcessingModel, ShopperInfo } from "../domain/links/types.ts";
import type { Database } from "./connect.ts";
import { type LinkListFilter, listLinkRows } from "./link-list-repository.ts";
import { pageTotal } from "./page-total.ts";
import { preparedStatement, runPrepared } from "./prepared.ts";
import type { DB, PaymentLinksTable } from "./schema.ts";
import { type SubmissionRecord, toSubmission } from "./submissions-repository.ts";

export interface PaymentLinkRecord {
  reference: string;
  merchantId: string;
  terms: LinkTerms;
  salesCount: number;
  visitCount: number;
  disabled: boolean;
  createdAt: Date;
}

type Queryable = Database | Transaction<DB>;

/** The columns a record is made of (a statement that names its columns reads these). */
export const LINK_RECORD_COLUMNS = [
  "reference",
  "merchant_id",
  "terminal_identifier",
  "type",
  "amount",
  "currency",
  "items",
  "shopper_info",
  "recurring_processing_model",
  "culture",
  "theme_key",
  "description",
  "return_url",
  "valid_until",
  "max_sales_count",
  "sales_count",
  "visit_count",
  "disabled",
  "created_at",
] as const;

export type LinkRecordRow = Pick<Selectable<PaymentLinksTable>, (typeof LINK_RECORD_COLUMNS)[number]>;

export function toRecord(row: LinkRecordRow): PaymentLinkRecord {
  return {
    reference: row.reference,
    merchantId: row.merchant_id,
    salesCount: row.sales_count,
    visitCount: row.visit_count,
    disabled: row.disabled,
    createdAt: row.created_at,
    terms: {
      type: row.type as LinkType,
      terminalIdentifier: row.terminal_identifier,
      amount: row.amount,
      currency: row.currency,
      items: (row.items as Item[]).map(normalizeItem),
      shopperInfo: (row.shopper_info as ShopperInfo[]).map((s) => ({
        field: s.field,
        requirementType: s.requirementType,
        prefilledValue: s.prefilledValue ?? null,
      })),
      recurringProcessingModel: row.recurring_processing_model as RecurringProcessingModel | null,
      culture: row.culture as Culture,
      themeKey: row.theme_key,
      description: row.description,
      returnUrl: row.return_url,
      validUntil: row.valid_until,
      maxSalesCount: row.max_sales_count,
    },
  };
}

/** jsonb does not keep key order; the wire shows the order of Straumur's payment-links API. */
function normalizeItem(item: Item): Item {
  return {
    name: item.name,
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    amountWithoutDiscount: item.amountWithoutDiscount,
    amount: item.amount,
  };
}

function termColumns(terms: LinkTerms) {
  return {
    amount: terms.amount,
    currency: terms.currency,
    items: JSON.stringify(terms.items),
    shopper_info: JSON.stringify(terms.shopperInfo),
    recurring_processing_model: terms.recurringProcessingModel,
    culture: terms.culture,
    theme_key: terms.themeKey,
    description: terms.description,
    return_url: terms.returnUrl,
    valid_until: terms.validUntil,
    max_sales_count: terms.maxSalesCount,
  };
}

export async function insertLink(db: Queryable, reference: string, merchantId: string, terms: LinkTerms): Promise<void> {
  await db
    .insertInto("payment_links")
    .values({ reference, merchant_id: merchantId, terminal_identifier: terms.terminalIdentifier, type: terms.type, ...termColumns(terms) })
    .execute();
}

/**
 * The create's insert with its checks (below); a prepared statement on PostgreSQL (db/prepared.ts).
 * The terminal and the theme are found by their keys, their owner checked as a filter.
 */
const INSERT_LINK_IF_REFERENCES_VALID = preparedStatement(
  "api_insert_link_if_references_valid",
  `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info,
                             recurring_processing_model, culture, theme_key, description, return_url, valid_until, max_sales_count)
   SELECT $1, $2, t.terminal_identifier, $3, $4::bigint, $5, $6::jsonb, $7::jsonb, $8::text, $9, $10::text, $11, $12::text,
          $13::timestamptz, $14::integer
   FROM terminals t
   WHERE t.terminal_identifier = $15 AND (t.merchant_id = $2) IS TRUE
     AND (t.currencies IS NULL OR $5::text = ANY (t.currencies))
     AND ($10::text IS NULL OR EXISTS (SELECT 1 FROM themes WHERE theme_key = $10 AND (merchant_id = $2) IS TRUE))`,
);

/**
 * Inserts the link only if its terminal is the merchant's and accepts the currency, and its theme
 * (if any) is the merchant's: the checks and the insert in one round trip. False when a check
 * failed and nothing was inserted; the caller then finds out which (services/merchant-references.ts).
 */
export async function insertLinkIfReferencesValid(
  db: Queryable,
  reference: string,
  merchantId: string,
  terms: LinkTerms,
): Promise<boolean> {
  const c = termColumns(terms);
  const result = await runPrepared(db, INSERT_LINK_IF_REFERENCES_VALID, [
    reference,
    merchantId,
    terms.type,
    c.amount,
    c.currency,
    c.items,
    c.shopper_info,
    c.recurring_processing_model,
    c.culture,
    c.theme_key,
    c.description,
    c.return_url,
    c.valid_until,
    c.max_sales_count,
    terms.terminalIdentifier,
  ]);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** A merchant's link; another merchant's link is reported as missing. */
export async function findLink(db: Queryable, merchantId: string, reference: string): Promise<PaymentLinkRecord | undefined> {
  const row = await db
    .selectFrom("payment_links")
    .selectAll()
    .where("reference", "=", reference)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && toRecord(row);
}

/** The same, for the public checkout page, which knows no merchant. */
export async function findLinkByReference(db: Queryable, reference: string): Promise<PaymentLinkRecord | undefined> {
  const row = await db.selectFrom("payment_links").selectAll().where("reference", "=", reference).executeTakeFirst();
  return row && toRecord(row);
}

/** Locks the row until the transaction ends, so a sale cannot slip between a check and a write. */
export async function findLinkForUpdate(
  trx: Transaction<DB>,
  merchantId: string,
  reference: string,
): Promise<(PaymentLinkRecord & { reservedCount: number }) | undefined> {
  const row = await trx
    .selectFrom("payment_links")
    .selectAll()
    .where("reference", "=", reference)
    .where("merchant_id", "=", merchantId)
    .forUpdate()
    .executeTakeFirst();
  return row && { ...toRecord(row), reservedCount: row.reserved_count };
}

export async function saveLinkChange(trx: Transaction<DB>, reference: string, terms: LinkTerms, disabled: boolean): Promise<void> {
  await trx
    .updateTable("payment_links")
    .set({ ...termColumns(terms), disabled, updated_at: new Date() })
    .where("reference", "=", reference)
    .execute();
}

/** Returns false when the link does not exist for this merchant. Disabling twice is fine. */
export async function disableLink(db: Queryable, merchantId: string, reference: string): Promise<boolean> {
  const result = await db
    .updateTable("payment_links")
    .set({ disabled: true, updated_at: new Date() })
    .where("reference", "=", reference)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A page of a link's submissions, newest first (ties by reference), and how many it has in all:
 * the portal shows a busy link's submissions a page at a time (docs/decisions.md#big-link-reads).
 */
export async function listSubmissionsPage(
  db: Queryable,
  reference: string,
  page: { offset: number; limit: number },
): Promise<{ submissions: SubmissionRecord[]; totalCount: number }> {
  const total = sql<string>`(SELECT count(*) FROM submissions WHERE link_reference = ${reference})`;
  const rows = await db
    .selectFrom("submissions")
    .selectAll()
    .select(total.as("total_count"))
    .where("link_reference", "=", reference)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(rows, () => db.selectNoFrom(total.as("count")).executeTakeFirstOrThrow());
  return { submissions: rows.map(toSubmission), totalCount };
}

/** The portal's list: whole links (the API's list reads summaries only, db/link-list-repository.ts). */
export function listLinks(
  db: Queryable,
  merchantId: string,
  filter: LinkListFilter,
  page: { offset: number; limit: number },
  now: Date,
): Promise<{ links: PaymentLinkRecord[]; totalCount: number }> {
  return listLinkRows(db, merchantId, filter, page, now, "all", toRecord);
}
