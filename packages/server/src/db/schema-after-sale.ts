// Kysely's view of the after-sale tables (migration 0009): saved-card charges, refunds and
// reversals, disabled tokens. Part of the DB interface in schema.ts.
import type { ColumnType, Generated } from "kysely";
import type { NullableTimestamp, Timestamp } from "./schema-columns.ts";

/** A saved card that may no longer be charged (migration 0009). */
export interface DisabledTokensTable {
  token: string;
  merchant_id: string;
  disabled_at: Timestamp;
}

/** A charge of a saved card (migration 0009). */
export interface TokenPaymentsTable {
  id: string;
  merchant_id: string;
  terminal_identifier: string;
  token: string;
  merchant_reference: string;
  amount: ColumnType<number, number, number>;
  currency: string;
  state: Generated<string>;
  payfac_reference: string | null;
  auth_code: string | null;
  reason: string | null;
  recurring_processing_model: string | null;
  shopper_ip: string | null;
  origin: string | null;
  channel: string | null;
  return_url: string | null;
  card_brand: string | null;
  card_masked: string | null;
  card_last4: string | null;
  card_expiry: string | null;
  card_usage: string | null;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
}

/** What of an authorised payment is refunded or reserved by refunds in flight (migration 0009). */
export interface RefundBalancesTable {
  payfac_reference: string;
  merchant_id: string;
  amount: ColumnType<number, number, number>;
  currency: string;
  refunded_amount: Generated<number>;
  reserved_amount: Generated<number>;
}

/** One refund or reversal (migration 0009). */
export interface RefundsTable {
  payfac_reference: string;
  original_payfac_reference: string;
  merchant_id: string;
  kind: string;
  amount: ColumnType<number, number, number>;
  currency: string;
  merchant_reference: string | null;
  refund_reason: string | null;
  state: Generated<string>;
  failure_reason: string | null;
  attempt_count: Generated<number>;
  next_attempt_at: Timestamp;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
}

/** Every payment's payfacReference, once (migration 0019). */
export interface PayfacReferencesTable {
  payfac_reference: string;
  source: "link" | "token";
  checkout_reference: string;
}
