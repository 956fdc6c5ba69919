// A payment as the after-sale API sees it, wherever it was made: a link sale (a submission) or a
// charge of a saved card (a token payment). Found by the processor's payfacReference, and only
// among the merchant's own: another merchant's payment is not found.
import { type Kysely, sql } from "kysely";
import type { CaptureTerms } from "../domain/payments/capture.ts";
import { type PaymentFactColumns, type PaymentFacts, paymentFactsOf } from "./payment-facts.ts";
import type { DB } from "./schema.ts";

export interface PaymentRecord extends PaymentFacts {
  source: "link" | "token";
  checkoutReference: string;
  payfacReference: string;
  merchantId: string;
  /** The link's reference for a link sale; the merchant's own `reference` for a token payment. */
  merchantReference: string;
  paymentLinkReference: string | null;
  /** The terminal that took it: its processor makes the refunds, reversals and captures. */
  terminalIdentifier: string;
  amount: number;
  currency: string;
  /** pending, approved, declined, failed, abandoned. */
  state: string;
  createdAt: Date;
  /** How a session's payment is captured later (manual capture or captureHoursDelay); null when captured with its authorisation. */
  capture: CaptureTerms | null;
}

interface PaymentRow extends PaymentFactColumns {
  source: "link" | "token";
  id: string;
  payfac_reference: string;
  merchant_id: string;
  merchant_reference: string;
  link_reference: string | null;
  terminal_identifier: string;
  amount: number | string;
  currency: string;
  state: string;
  created_at: Date | string;
  manual_capture: boolean;
  pre_auth: boolean;
  capture_hours_delay: number | null;
  authorised_at: Date | string;
}

export async function findPayment(db: Kysely<DB>, merchantId: string, payfacReference: string): Promise<PaymentRecord | undefined> {
  const result = await sql<PaymentRow>`
    SELECT 'token' AS source, id, payfac_reference, merchant_id, merchant_reference, NULL AS link_reference, terminal_identifier, amount, currency,
           state, reason, auth_code, card_brand, card_masked, card_last4, card_expiry, card_usage, created_at,
           false AS manual_capture, false AS pre_auth, NULL::integer AS capture_hours_delay, coalesce(completed_at, created_at) AS authorised_at
    FROM token_payments WHERE payfac_reference = ${payfacReference} AND merchant_id = ${merchantId}
    UNION ALL
    SELECT 'link' AS source,
           -- A session's payment is read by the session's reference and the shop's order id.
           CASE WHEN l.kind = 'session' THEN l.reference ELSE s.id END,
           s.payfac_reference, l.merchant_id, coalesce(l.order_reference, l.reference),
           CASE WHEN l.kind = 'session' THEN NULL ELSE l.reference END, l.terminal_identifier, s.amount, s.currency,
           s.state, s.reason, s.auth_code, s.card_brand, s.card_masked, s.card_last4, s.card_expiry, s.card_usage, s.created_at,
           s.manual_capture, l.is_pre_auth, CASE WHEN s.manual_capture THEN NULL ELSE l.capture_hours_delay END,
           coalesce(s.completed_at, s.created_at)
    FROM submissions s JOIN payment_links l ON l.reference = s.link_reference
    WHERE s.payfac_reference = ${payfacReference} AND l.merchant_id = ${merchantId}
    LIMIT 1`.execute(db);
  const row = result.rows[0];
  return (
    row && {
      ...paymentFactsOf(row),
      source: row.source,
      checkoutReference: row.id,
      payfacReference: row.payfac_reference,
      merchantId: row.merchant_id,
      merchantReference: row.merchant_reference,
      paymentLinkReference: row.link_reference,
      terminalIdentifier: row.terminal_identifier,
      amount: Number(row.amount),
      currency: row.currency,
      state: row.state,
      createdAt: new Date(row.created_at),
      capture: captureTermsOf(row),
    }
  );
}

const HOUR_MS = 60 * 60 * 1000;

function captureTermsOf(row: PaymentRow): CaptureTerms | null {
  if (!row.manual_capture && row.capture_hours_delay === null) return null;
  const authorisedAt = new Date(row.authorised_at);
  return {
    manual: row.manual_capture,
    preAuth: row.pre_auth,
    authorisedAt,
    autoCaptureAt: row.manual_capture ? null : new Date(authorisedAt.getTime() + (row.capture_hours_delay ?? 0) * HOUR_MS),
  };
}
