// What every payment carries about the processor's answer and the card, whichever table holds it
// (submissions for link sales, token_payments for saved-card charges): one shape and one mapper,
// so the checkout's, the API's and the portal's reads of a payment cannot drift apart.

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

/** The columns of PaymentFacts, named alike in both tables. */
export interface PaymentFactColumns {
  payfac_reference: string | null;
  auth_code: string | null;
  reason: string | null;
  card_brand: string | null;
  card_masked: string | null;
  card_last4: string | null;
  card_expiry: string | null;
  card_usage: string | null;
}

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
