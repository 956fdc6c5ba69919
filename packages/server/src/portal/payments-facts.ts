// What a payments table shows beside each payment besides the payment itself: how much of it was
// refunded, and whether it is disputed. One read for the overview, the payments page and a customer's page.
import type { Database } from "../db/connect.ts";
import { disputedPayments } from "../db/disputes-repository.ts";
import { refundedAmounts } from "../db/refunds-repository.ts";

export interface PaymentsFacts {
  /** Confirmed refunds per payfacReference. */
  refunded: Map<string, number>;
  /** The payfacReferences with a chargeback or dispute. */
  disputed: Set<string>;
}

export async function paymentsFacts(
  db: Database,
  merchantId: string,
  payments: ReadonlyArray<{ payfacReference: string | null }>,
): Promise<PaymentsFacts> {
  const references = payments.flatMap((p) => (p.payfacReference ? [p.payfacReference] : []));
  const [refunded, disputed] = await Promise.all([refundedAmounts(db, references), disputedPayments(db, merchantId, references)]);
  return { refunded, disputed };
}
