// Saved cards: the token of an approved submission (a tokenize link, or a pay-and-save link),
// owned by the link's merchant. Disabling one is a row in disabled_tokens, written once.
import { type Kysely, sql } from "kysely";
import { shopperEmailOf } from "../domain/payments/shopper-email.ts";
import type { DB } from "./schema.ts";
import type { Answer } from "./submissions-repository.ts";

export interface SavedCard {
  token: string;
  merchantId: string;
  /** The payment that saved the card (a session's payment: the session), and its processor reference. */
  checkoutReference: string;
  payfacReference: string | null;
  /** The link's reference, or the order id of the session that saved the card. */
  merchantReference: string;
  /** The link that saved the card; null when a session did. */
  paymentLinkReference: string | null;
  currency: string;
  recurringProcessingModel: string | null;
  cardBrand: string;
  cardMasked: string;
  cardLast4: string;
  cardExpiry: string;
  cardUsage: string | null;
  disabled: boolean;
  /** The shopper's e-mail the saving payment knew (domain/payments/shopper-email.ts), for receipts. */
  shopperEmail: string | null;
  /** The saving link's or session's culture (is, en): the receipt's language. */
  culture: string;
  merchantName: string;
  /** The terminal of the link or session that saved it: the portal charges through it. */
  terminalIdentifier: string;
}

interface SavedCardRow {
  token: string;
  merchant_id: string;
  id: string;
  payfac_reference: string | null;
  merchant_reference: string;
  link_reference: string | null;
  currency: string;
  recurring_processing_model: string | null;
  card_brand: string | null;
  card_masked: string | null;
  card_last4: string | null;
  card_expiry: string | null;
  card_usage: string | null;
  disabled: boolean;
  answers: Answer[];
  shopper_contact: string | null;
  culture: string;
  merchant_name: string;
  terminal_identifier: string;
}

/** The merchant's saved card with this token; another merchant's token is not found. */
export async function findSavedCard(db: Kysely<DB>, merchantId: string, token: string): Promise<SavedCard | undefined> {
  const result = await sql<SavedCardRow>`
    SELECT s.token, l.merchant_id, CASE WHEN l.kind = 'session' THEN l.reference ELSE s.id END AS id, s.payfac_reference,
           coalesce(l.order_reference, l.reference) AS merchant_reference,
           CASE WHEN l.kind = 'session' THEN NULL ELSE l.reference END AS link_reference, s.currency,
           l.recurring_processing_model, s.card_brand, s.card_masked, s.card_last4, s.card_expiry, s.card_usage,
           EXISTS (SELECT 1 FROM disabled_tokens d WHERE d.token = s.token) AS disabled,
           s.answers, l.shopper_contact, l.culture, m.name AS merchant_name, l.terminal_identifier
    FROM submissions s JOIN payment_links l ON l.reference = s.link_reference JOIN merchants m ON m.id = l.merchant_id
    WHERE s.token = ${token} AND s.state = 'approved' AND l.merchant_id = ${merchantId}
    ORDER BY s.created_at LIMIT 1`.execute(db);
  const row = result.rows[0];
  return (
    row && {
      token: row.token,
      merchantId: row.merchant_id,
      checkoutReference: row.id,
      payfacReference: row.payfac_reference,
      merchantReference: row.merchant_reference,
      paymentLinkReference: row.link_reference,
      currency: row.currency,
      recurringProcessingModel: row.recurring_processing_model ?? "CardOnFile",
      cardBrand: row.card_brand ?? "OT",
      cardMasked: row.card_masked ?? "",
      cardLast4: row.card_last4 ?? "",
      cardExpiry: row.card_expiry ?? "",
      cardUsage: row.card_usage,
      disabled: Boolean(row.disabled),
      shopperEmail: shopperEmailOf(row.answers ?? [], row.shopper_contact),
      culture: row.culture,
      merchantName: row.merchant_name,
      terminalIdentifier: row.terminal_identifier,
    }
  );
}

/** Records the disable; true only for the call that made it (so exactly one TokenDisabled is sent). */
export async function markTokenDisabled(trx: Kysely<DB>, merchantId: string, token: string): Promise<boolean> {
  const result = await sql`
    INSERT INTO disabled_tokens (token, merchant_id) VALUES (${token}, ${merchantId})
    ON CONFLICT (token) DO NOTHING`.execute(trx);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** A card saved under a shopper: what the session page may show of it, and whether it can still be charged. */
export interface ShopperSavedCard {
  token: string;
  brand: string;
  last4: string;
  masked: string;
  /** `MM/YYYY`. */
  expiry: string;
  usage: string | null;
  recurringProcessingModel: string | null;
  disabled: boolean;
}

interface ShopperSavedCardRow {
  token: string;
  card_brand: string | null;
  card_last4: string | null;
  card_masked: string | null;
  card_expiry: string | null;
  card_usage: string | null;
  recurring_processing_model: string | null;
  disabled: boolean;
}

/**
 * The cards saved by this merchant's sessions that named this merchantShopperReference, newest
 * first, one row per token (docs/api.md#hosted-checkout-sessions). With `token`, only that card:
 * another merchant's or another shopper's token is not found.
 */
export async function findShopperSavedCards(
  db: Kysely<DB>,
  merchantId: string,
  shopperReference: string,
  token?: string,
): Promise<ShopperSavedCard[]> {
  const oneToken = token === undefined ? sql`` : sql`AND s.token = ${token}`;
  const result = await sql<ShopperSavedCardRow>`
    SELECT token, card_brand, card_last4, card_masked, card_expiry, card_usage, recurring_processing_model, disabled FROM (
      SELECT DISTINCT ON (s.token) s.token, s.card_brand, s.card_last4, s.card_masked, s.card_expiry, s.card_usage,
             l.recurring_processing_model, s.created_at,
             EXISTS (SELECT 1 FROM disabled_tokens d WHERE d.token = s.token) AS disabled
      FROM payment_links l JOIN submissions s ON s.link_reference = l.reference
      WHERE l.merchant_id = ${merchantId} AND l.kind = 'session' AND l.merchant_shopper_reference = ${shopperReference}
        AND s.state = 'approved' AND s.token IS NOT NULL ${oneToken}
      ORDER BY s.token, s.created_at
    ) saved ORDER BY created_at DESC, token LIMIT 20`.execute(db);
  return result.rows.map((row) => ({
    token: row.token,
    brand: row.card_brand ?? "OT",
    last4: row.card_last4 ?? "",
    masked: row.card_masked ?? "",
    expiry: row.card_expiry ?? "",
    usage: row.card_usage,
    recurringProcessingModel: row.recurring_processing_model,
    disabled: Boolean(row.disabled),
  }));
}
