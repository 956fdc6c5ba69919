// What every payment carries about the processor's answer and the card, whichever table holds it
// (submissions for link sales, token_payments for saved-card charges): one shape and one mapper,
// so the checkout's, the API's and the portal's reads of a payment cannot drift apart.
import type { SubmissionsTable } from "./schema.ts";

export interface PaymentFacts {
  payfacReference: string | null;
  authCode: string | null;
  reason: string | null;
  cardBrand: string | null;
  cardMasked: string | null;
  cardLast4: string | null;
  cardExpiry: string | null;
  cardUsage: string | null;
}

/** The columns of PaymentFacts, named and typed alike in both tables. */
export const PAYMENT_FACT_COLUMNS = [
  "payfac_reference",
  "auth_code",
  "reason",
  "card_brand",
  "card_masked",
  "card_last4",
  "card_expiry",
  "card_usage",
] as const;
export type PaymentFactColumns = Pick<SubmissionsTable, (typeof PAYMENT_FACT_COLUMNS)[number]>;

export function paymentFactsOf(row: PaymentFactColumns): PaymentFacts {
  return {
    payfacReference: row.payfac_reference,
    authCode: row.auth_code,
    reason: row.reason,
    cardBrand: row.card_brand,
    cardMasked: row.card_masked,
    cardLast4: row.card_last4,
    cardExpiry: row.card_expiry,
    cardUsage: row.card_usage,
  };
}
