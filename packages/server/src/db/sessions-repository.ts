// Hosted-checkout sessions: rows of payment_links of kind 'session' (docs/decisions.md#sale-cap-reservation),
// so their payments take the links' one path. Here: the insert and the status read.
import { sql } from "kysely";
import type { LinkTerms } from "../domain/links/types.ts";
import type { SessionTerms } from "../domain/sessions/types.ts";
import type { Database } from "./connect.ts";
import { LINK_RECORD_COLUMNS, type LinkRecordRow, type PaymentLinkRecord, toRecord } from "./links-repository.ts";

export async function insertSession(db: Database, reference: string, merchantId: string, terms: LinkTerms, session: SessionTerms) {
  await db
    .insertInto("payment_links")
    .values({
      reference,
      merchant_id: merchantId,
      kind: "session",
      terminal_identifier: terms.terminalIdentifier,
      type: terms.type,
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
      order_reference: session.orderReference,
      abandon_url: session.abandonUrl,
      merchant_shopper_reference: session.merchantShopperReference,
      shopper_contact: session.shopperContact,
      is_manual_capture: session.isManualCapture,
      capture_hours_delay: session.captureHoursDelay,
      is_pre_auth: session.isPreAuth,
    })
    .execute();
}

/**
 * A merchant's session with the payfacReference of its sale (null until one is approved); another
 * merchant's session, and a payment link, are not found.
 */
export async function findSession(
  db: Database,
  merchantId: string,
  reference: string,
): Promise<{ session: PaymentLinkRecord; payfacReference: string | null } | undefined> {
  const { rows } = await sql<LinkRecordRow & { sale_payfac_reference: string | null }>`
    SELECT ${sql.join(LINK_RECORD_COLUMNS.map((column) => sql.ref(`l.${column}`)))},
           (SELECT s.payfac_reference FROM submissions s
            WHERE s.link_reference = l.reference AND s.state = 'approved' LIMIT 1) AS sale_payfac_reference
    FROM payment_links l
    WHERE l.reference = ${reference} AND l.merchant_id = ${merchantId} AND l.kind = 'session'`.execute(db);
  const row = rows[0];
  return row && { session: toRecord(row), payfacReference: row.sale_payfac_reference };
}
