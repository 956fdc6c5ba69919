// What the portal reads about a merchant's shoppers: who they are (an e-mail, or the merchant's own
// shopper reference when no e-mail is known), their payments and the cards they saved. Read-only;
// every query is scoped to one merchant and reaches submissions through the merchant's links.
import { type Kysely, type RawBuilder, sql } from "kysely";
import { FINISHED_STATES } from "./payments-read-repository.ts";
import type { DB } from "./schema.ts";

/** A shopper: by e-mail (lower case), else by the merchant's shopper reference. */
export type ShopperKey = { kind: "email"; value: string } | { kind: "reference"; value: string };

/**
 * domain/payments/shopper-email.ts shopperEmailOf as SQL over a submission `s` and its link `l`:
 * the session's shopperContact, else the EmailAddress answer, trimmed; null when neither.
 */
export function shopperEmailSql(): RawBuilder<string | null> {
  return sql<string | null>`coalesce(nullif(l.shopper_contact, ''), nullif(btrim((
    SELECT a ->> 'value' FROM jsonb_array_elements(s.answers) a WHERE a ->> 'field' = 'EmailAddress' LIMIT 1)), ''))`;
}

const nameSql = sql<string | null>`(SELECT a ->> 'value' FROM jsonb_array_elements(s.answers) a WHERE a ->> 'field' = 'FullName' LIMIT 1)`;

/** The shopper's key of each finished submission of the merchant, with what a search may match. */
function shopperRows(merchantId: string) {
  const finished = sql.join(FINISHED_STATES.map((state) => sql.lit(state)));
  return sql`
    SELECT lower(${shopperEmailSql()}) AS email, l.merchant_shopper_reference AS reference, ${nameSql} AS name,
           s.id, s.token, s.card_last4, s.created_at
    FROM payment_links l JOIN submissions s ON s.link_reference = l.reference
    WHERE l.merchant_id = ${merchantId} AND s.state IN (${finished})`;
}

/** Matches a search on the columns of shopperRows (or of the saved-card rows, which share them). */
function searchSql(search: string | undefined) {
  if (!search) return sql`TRUE`;
  const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const lastFour = /^\d{4}$/.test(search) ? sql` OR card_last4 = ${search}` : sql``;
  return sql`(email ILIKE ${pattern} OR reference ILIKE ${pattern} OR name ILIKE ${pattern}${lastFour})`;
}

const keySql = sql<string>`CASE WHEN email IS NOT NULL THEN 'email:' || email ELSE 'reference:' || reference END`;

export function shopperKeyOf(email: string | null, reference: string | null): ShopperKey | null {
  if (email) return { kind: "email", value: email.toLowerCase() };
  return reference ? { kind: "reference", value: reference } : null;
}

function keyFromText(text: string): ShopperKey {
  return text.startsWith("email:") ? { kind: "email", value: text.slice(6) } : { kind: "reference", value: text.slice(10) };
}

export interface CustomerSummary {
  key: ShopperKey;
  email: string | null;
  reference: string | null;
  name: string | null;
  payments: number;
  lastSeen: Date;
}

/** The merchant's shoppers, most recently seen first; `search` matches e-mail, name, reference or the last four. */
export async function listCustomers(
  db: Kysely<DB>,
  merchantId: string,
  search: string | undefined,
  page: { offset: number; limit: number },
): Promise<{ customers: CustomerSummary[]; totalCount: number }> {
  const result = await sql<{
    key: string;
    email: string | null;
    reference: string | null;
    name: string | null;
    payments: string | number;
    last_seen: Date | string;
    total_count: string | number;
  }>`
    WITH rows AS (${shopperRows(merchantId)}),
    matched AS (
      SELECT ${keySql} AS key FROM rows WHERE (email IS NOT NULL OR reference IS NOT NULL) AND ${searchSql(search)} GROUP BY 1
    )
    SELECT ${keySql} AS key, max(email) AS email, max(reference) AS reference, max(name) AS name, count(*) AS payments,
           max(created_at) AS last_seen, (SELECT count(*) FROM matched) AS total_count
    FROM rows WHERE (email IS NOT NULL OR reference IS NOT NULL) AND ${keySql} IN (SELECT key FROM matched)
    GROUP BY 1 ORDER BY last_seen DESC, key LIMIT ${page.limit} OFFSET ${page.offset}`.execute(db);
  return {
    totalCount: Number(result.rows[0]?.total_count ?? 0),
    customers: result.rows.map((row) => ({
      key: keyFromText(row.key),
      email: row.email,
      reference: row.reference,
      name: row.name,
      payments: Number(row.payments),
      lastSeen: new Date(row.last_seen),
    })),
  };
}

export interface CustomerActivity {
  email: string | null;
  reference: string | null;
  name: string | null;
  /** Checkout references of the shopper's link and session payments and of the charges of their cards. */
  paymentReferences: string[];
  /** The tokens of the cards they saved. */
  tokens: string[];
}

const MOST_PAYMENTS = 100;

/** One shopper's payments and cards; undefined when this merchant has no such shopper. */
export async function customerActivity(db: Kysely<DB>, merchantId: string, key: ShopperKey): Promise<CustomerActivity | undefined> {
  const match = key.kind === "email" ? sql`email = ${key.value}` : sql`email IS NULL AND reference = ${key.value}`;
  const rows = (
    await sql<{ id: string; token: string | null; email: string | null; reference: string | null; name: string | null }>`
      WITH rows AS (${shopperRows(merchantId)})
      SELECT id, token, email, reference, name FROM rows WHERE ${match} ORDER BY created_at DESC`.execute(db)
  ).rows;
  if (rows.length === 0) return undefined;
  const tokens = [...new Set(rows.flatMap((row) => (row.token ? [row.token] : [])))];
  const charges =
    tokens.length === 0
      ? []
      : await db
          .selectFrom("token_payments")
          .select(["id", "created_at"])
          .where("merchant_id", "=", merchantId)
          .where("token", "in", tokens)
          .where("state", "in", [...FINISHED_STATES])
          .orderBy("created_at", "desc")
          .limit(MOST_PAYMENTS)
          .execute();
  return {
    email: rows.find((row) => row.email)?.email ?? null,
    reference: rows.find((row) => row.reference)?.reference ?? null,
    name: rows.find((row) => row.name)?.name ?? null,
    paymentReferences: [...charges.map((charge) => charge.id), ...rows.map((row) => row.id)].slice(0, MOST_PAYMENTS),
    tokens,
  };
}

export interface SavedCardSummary {
  /** The submission that saved the card: the card's id in the portal's addresses (the token is not shown). */
  id: string;
  token: string;
  brand: string | null;
  masked: string | null;
  last4: string | null;
  expiry: string | null;
  disabled: boolean;
  email: string | null;
  reference: string | null;
  name: string | null;
  savedAt: Date;
}

/** The merchant's saved cards, newest first: all, those matching `search`, or those with these tokens. */
export async function listSavedCards(
  db: Kysely<DB>,
  merchantId: string,
  filter: { search?: string | undefined; tokens?: string[]; id?: string },
  limit = 100,
): Promise<SavedCardSummary[]> {
  if (filter.tokens?.length === 0) return [];
  const tokens = filter.tokens ? sql`AND s.token IN (${sql.join(filter.tokens)})` : sql``;
  const result = await sql<{
    id: string;
    token: string;
    card_brand: string | null;
    card_masked: string | null;
    card_last4: string | null;
    card_expiry: string | null;
    disabled: boolean;
    email: string | null;
    reference: string | null;
    name: string | null;
    created_at: Date | string;
  }>`
    SELECT * FROM (
      SELECT DISTINCT ON (s.token) s.id, s.token, s.card_brand, s.card_masked, s.card_last4, s.card_expiry, s.created_at,
             lower(${shopperEmailSql()}) AS email, l.merchant_shopper_reference AS reference, ${nameSql} AS name,
             EXISTS (SELECT 1 FROM disabled_tokens d WHERE d.token = s.token) AS disabled
      FROM payment_links l JOIN submissions s ON s.link_reference = l.reference
      WHERE l.merchant_id = ${merchantId} AND s.state = 'approved' AND s.token IS NOT NULL ${tokens}
      ORDER BY s.token, s.created_at
    ) cards WHERE ${searchSql(filter.search)} ${filter.id === undefined ? sql`` : sql`AND id = ${filter.id}`}
    ORDER BY created_at DESC, id LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => ({
    id: row.id,
    token: row.token,
    brand: row.card_brand,
    masked: row.card_masked,
    last4: row.card_last4,
    expiry: row.card_expiry,
    disabled: Boolean(row.disabled),
    email: row.email,
    reference: row.reference,
    name: row.name,
    savedAt: new Date(row.created_at),
  }));
}

/** The merchant's saved card first saved by submission `id`; another merchant's is undefined. */
export async function findSavedCardById(db: Kysely<DB>, merchantId: string, id: string): Promise<SavedCardSummary | undefined> {
  const [card] = await listSavedCards(db, merchantId, { id }, 1);
  return card;
}
