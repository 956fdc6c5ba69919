// Kysely's view of the tables in migrations/. Rows stay inside db/: repositories return domain
// values, never these shapes.
import type { ColumnType, Generated } from "kysely";

/** A timestamptz column with a database default. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A nullable timestamptz column. */
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type Json<T> = ColumnType<T, string, string>;

export interface MerchantsTable {
  id: string;
  name: string;
  created_at: Timestamp;
  require_two_factor: Generated<boolean>;
}

export interface TerminalsTable {
  terminal_identifier: string;
  merchant_id: string;
  name: Generated<string>;
  currencies: string[] | null;
  created_at: Timestamp;
  /** sandbox, straumur, adyen or stripe (migration 0035). */
  processor_type: Generated<string>;
  /** The processor's non-secret settings (migration 0035). */
  processor_settings: ColumnType<unknown, string | null | undefined, string | null>;
  /** The processor's secrets as JSON, encrypted under the keyring (migration 0035). */
  processor_secrets: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  name: Generated<string>;
  key_hash: string;
  key_prefix: string;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  /** Written at most once a minute by the API-key check (migration 0013). */
  last_used_at: NullableTimestamp;
}

export interface ThemesTable {
  theme_key: string;
  merchant_id: string;
  name: string;
  primary_color: string | null;
  logo_url: string | null;
  logo_content_type: string | null;
  logo_bytes: Buffer | null;
  logo_sha256: string | null;
  created_at: Timestamp;
}

export interface PortalUsersTable {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  created_at: Timestamp;
  role: string;
  totp_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  two_factor_enabled_at: NullableTimestamp;
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** Opted in to a "you got paid" e-mail per payment (migration 0030). */
  notify_payments: Generated<boolean>;
  /** The language of the mail this user gets: is or en. */
  mail_language: Generated<string>;
}

export interface PortalInvitationsTable {
  id: string;
  merchant_id: string;
  email: string;
  role: string;
  language: string;
  token_hash: string;
  /** The inviter's e-mail, as the mail named them. */
  invited_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface PortalPasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface PortalSessionsTable {
  id_hash: string;
  user_id: string;
  merchant_id: string;
  csrf_token: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  id: Generated<string>;
  address: ColumnType<string | null, string | null | undefined, string | null>;
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
  second_factor_pending: Generated<boolean>;
}

export interface PortalRecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: NullableTimestamp;
}

export interface MerchantRefundLimitsTable {
  merchant_id: string;
  currency: string;
  amount: ColumnType<number, number, number>;
}

export interface PortalSigninFailuresTable {
  id: Generated<number>;
  subject: string;
  failed_at: Timestamp;
}

export interface PaymentLinksTable {
  reference: string;
  merchant_id: string;
  terminal_identifier: string;
  type: string;
  amount: ColumnType<number, number, number>;
  currency: string;
  items: Json<unknown>;
  shopper_info: Json<unknown>;
  recurring_processing_model: string | null;
  culture: string;
  theme_key: string | null;
  description: string;
  return_url: string | null;
  valid_until: NullableTimestamp;
  max_sales_count: number | null;
  sales_count: Generated<number>;
  /** Sale slots held by payments in flight (migration 0003). */
  reserved_count: Generated<number>;
  visit_count: Generated<number>;
  disabled: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** 'link' or 'session', a hosted-checkout session (migration 0027); the session's own columns follow. */
  kind: Generated<string>;
  order_reference: ColumnType<string | null, string | null | undefined, string | null>;
  abandon_url: ColumnType<string | null, string | null | undefined, string | null>;
  merchant_shopper_reference: ColumnType<string | null, string | null | undefined, string | null>;
  shopper_contact: ColumnType<string | null, string | null | undefined, string | null>;
  is_manual_capture: Generated<boolean>;
  capture_hours_delay: ColumnType<number | null, number | null | undefined, number | null>;
  is_pre_auth: Generated<boolean>;
}

export interface SubmissionsTable {
  id: string;
  link_reference: string;
  answers: Json<unknown>;
  amount: number;
  currency: string;
  state: Generated<string>;
  completed: Generated<boolean>;
  token: string | null;
  payfac_reference: string | null;
  auth_code: string | null;
  reason: string | null;
  card_brand: string | null;
  card_masked: string | null;
  card_last4: string | null;
  card_expiry: string | null;
  card_usage: string | null;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
  /** The checkout form attempt this submission came from (migration 0003). */
  attempt_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** An approval without a sale, whose cancel the processor has not confirmed yet (migration 0008). */
  cancel_pending: Generated<boolean>;
  /** Authorised for manual capture, as its session asked (migration 0027). */
  manual_capture: Generated<boolean>;
  /** The saved card's token a session's payment charged; null when a card was typed in (migration 0029). */
  paid_with_token: ColumnType<string | null, string | null | undefined, string | null>;
  /** The processor's reference of its hosted page for this attempt (migration 0036). */
  processor_reference: ColumnType<string | null, string | null | undefined, string | null>;
  /** Until when the processor's page takes this attempt's payment; its slot is held that long (migration 0036). */
  hosted_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The processor's page for this attempt, for a shopper who posts the form again (migration 0036). */
  redirect_url: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  merchant_id: string;
  key: string;
  request_hash: string;
  state: Generated<string>;
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
  /** Fences a claim: a request whose claim was taken over cannot commit its effect (migration 0019). */
  claim_token: string | null;
  /** The saved-card charge a key waits on while its outcome is unknown (state 'applied'). */
  charge_reference: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  url: string;
  api_key: string;
  hmac_key: string;
  enabled: Generated<boolean>;
  /** Whether the endpoint takes Dispute events (migration 0040). */
  dispute_events: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  merchant_id: string;
  endpoint_id: string;
  event_type: string;
  payload: Json<unknown>;
  state: Generated<string>;
  attempt_count: Generated<number>;
  next_attempt_at: Timestamp;
  lease_until: NullableTimestamp;
  /** Written by each claim; an outcome is recorded only under the token that claimed (migration 0004). */
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  last_status_code: number | null;
  created_at: Timestamp;
  delivered_at: NullableTimestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_at: Timestamp;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/** The checkout brake's counters (migration 0010): one row per client and link while its window lasts. */
export interface CheckoutAttemptsTable {
  client_key: string;
  link_reference: string;
  failures: ColumnType<number, number | undefined, number>;
  in_flight: ColumnType<number, number | undefined, number>;
  window_ends_at: Timestamp;
}

/** The circuit breaker of one endpoint (migration 0011). */
export interface WebhookEndpointHealthTable {
  endpoint_id: string;
  consecutive_failures: Generated<number>;
  open_until: NullableTimestamp;
  opened_at: NullableTimestamp;
}

// The after-sale tables (migration 0009): saved-card charges, refunds and reversals, disabled tokens.

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
  /** The processor's 3-D Secure page while the charge waits for the shopper (migration 0038). */
  shopper_redirect_url: ColumnType<string | null, string | null | undefined, string | null>;
}

/** What of an authorised payment is refunded or reserved by refunds in flight (migration 0009). */
export interface RefundBalancesTable {
  payfac_reference: string;
  merchant_id: string;
  amount: ColumnType<number, number, number>;
  currency: string;
  refunded_amount: Generated<number>;
  reserved_amount: Generated<number>;
  /** Manual capture (migration 0028): NULL when captured with the authorisation. */
  captured_amount: ColumnType<number | null, number | null | undefined, number | null>;
  capture_reserved_amount: Generated<number>;
  authorised_at: NullableTimestamp;
  auto_capture_at: NullableTimestamp;
  released_at: NullableTimestamp;
  pre_auth: Generated<boolean>;
}

/** One capture or adjustment of a manual-capture authorisation (migration 0028). */
export interface CapturesTable {
  payfac_reference: string;
  original_payfac_reference: string;
  merchant_id: string;
  kind: string;
  amount: ColumnType<number, number, number>;
  currency: string;
  merchant_reference: string | null;
  state: Generated<string>;
  failure_reason: string | null;
  attempt_count: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_at: Generated<Date>;
  decided_at: NullableTimestamp;
  /** The processor's reference of a capture it answered "received" (migration 0037). */
  processor_reference: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** The processor's reference of a refund it answered "received" (migration 0037). */
  processor_reference: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Every payment's payfacReference, once (migration 0019). */
export interface PayfacReferencesTable {
  payfac_reference: string;
  source: "link" | "token";
  checkout_reference: string;
}

export interface MailOutboxTable {
  id: Generated<string>;
  merchant_id: string | null;
  recipient: string;
  language: string;
  kind: string;
  subject: string;
  html: string;
  text: string;
  secret_sealed: string | null;
  secret_expires_at: NullableTimestamp;
  checkout_reference: string | null;
  status: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  lease_until: NullableTimestamp;
  lease_token: string | null;
  sent_at: NullableTimestamp;
  last_error: string | null;
  created_at: Generated<Date>;
}

export interface WebhookEndpointAlertsTable {
  endpoint_id: string;
  alerted_at: Timestamp;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: Timestamp;
}

/** The append-only audit log (migration 0032): a trigger refuses UPDATE and DELETE. */
export interface AuditLogTable {
  id: Generated<string>;
  merchant_id: string;
  actor_kind: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  object_type: string;
  object_id: string;
  address: string | null;
  details: ColumnType<unknown, string, never>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** Each decline a real processor reported on its page, once (migration 0039). */
export interface HostedDeclinesTable {
  payfac_reference: string;
  checkout_reference: string;
  created_at: Generated<Date>;
}

export interface DisputeStepsTable {
  terminal_identifier: string;
  event_reference: string;
  merchant_id: string;
  dispute_reference: string;
  payfac_reference: string;
  status: string;
  processor_event: string;
  amount: ColumnType<number | null, number | null, number | null>;
  currency: string | null;
  reason: Generated<string>;
  occurred_at: Timestamp;
  recorded_at: Generated<Date>;
}

export interface DB {
  merchants: MerchantsTable;
  terminals: TerminalsTable;
  api_keys: ApiKeysTable;
  themes: ThemesTable;
  portal_users: PortalUsersTable;
  portal_sessions: PortalSessionsTable;
  portal_invitations: PortalInvitationsTable;
  portal_password_resets: PortalPasswordResetsTable;
  portal_signin_failures: PortalSigninFailuresTable;
  portal_recovery_codes: PortalRecoveryCodesTable;
  merchant_refund_limits: MerchantRefundLimitsTable;
  payment_links: PaymentLinksTable;
  submissions: SubmissionsTable;
  hosted_declines: HostedDeclinesTable;
  dispute_steps: DisputeStepsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_endpoint_health: WebhookEndpointHealthTable;
  schema_migrations: SchemaMigrationsTable;
  server_secrets: ServerSecretsTable;
  disabled_tokens: DisabledTokensTable;
  token_payments: TokenPaymentsTable;
  refund_balances: RefundBalancesTable;
  refunds: RefundsTable;
  captures: CapturesTable;
  checkout_attempts: CheckoutAttemptsTable;
  payfac_references: PayfacReferencesTable;
  audit_log: AuditLogTable;
  mail_outbox: MailOutboxTable;
  webhook_endpoint_alerts: WebhookEndpointAlertsTable;
}
