-- E-mail (docs/operations.md#e-mail): a durable outbox like the webhooks' one. A message is
-- rendered before it is queued and written in the transaction of the event it tells of, so a
-- receipt exists exactly when its payment does. Workers lease rows (lease_until + lease_token,
-- claimed FOR UPDATE SKIP LOCKED), so several instances send each message once.
CREATE TABLE mail_outbox (
  id                 text PRIMARY KEY DEFAULT 'mail_' || replace(gen_random_uuid()::text, '-', ''),
  -- The merchant the message belongs to; null for mail of no merchant.
  merchant_id        text REFERENCES merchants (id),
  recipient          text NOT NULL,
  language           text NOT NULL CHECK (language IN ('is', 'en')),
  -- receipt, refund, paid, endpoint-failing, password-reset, invitation
  kind               text NOT NULL,
  subject            text NOT NULL,
  html               text NOT NULL,
  text               text NOT NULL,
  -- A one-time link (password reset, invitation), sealed with the keyring; the bodies hold only a
  -- placeholder. Erased once sent, given up on or expired, so it is never kept in clear nor long.
  secret_sealed      text,
  secret_expires_at  timestamptz,
  -- The payment a receipt or refund notice is about: a refund notice goes where its receipt went.
  checkout_reference text,
  -- pending (to send), sent, failed (given up), kept (no SMTP_URL: kept for the operator)
  status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'kept')),
  attempts           integer NOT NULL DEFAULT 0,
  next_attempt_at    timestamptz NOT NULL DEFAULT now(),
  lease_until        timestamptz,
  lease_token        text,
  sent_at            timestamptz,
  last_error         text,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_latest ON mail_outbox (created_at DESC);
CREATE INDEX mail_outbox_receipts ON mail_outbox (checkout_reference) WHERE kind = 'receipt';

-- "You got paid", per portal user and opt-in, in the language the user chose for mail.
ALTER TABLE portal_users ADD COLUMN notify_payments boolean NOT NULL DEFAULT false;
ALTER TABLE portal_users ADD COLUMN mail_language text NOT NULL DEFAULT 'en' CHECK (mail_language IN ('is', 'en'));
CREATE INDEX portal_users_notified_of_payments ON portal_users (merchant_id) WHERE notify_payments;
CREATE INDEX portal_users_by_merchant ON portal_users (merchant_id);

-- One "endpoint failing" alert per failing spell: the row is written with the alert and removed
-- when the endpoint has no failed delivery waiting any more, which ends the spell.
CREATE TABLE webhook_endpoint_alerts (
  endpoint_id  text PRIMARY KEY REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  alerted_at   timestamptz NOT NULL
);
