-- After the link (docs/api.md#saved-cards-and-refunds): charges of saved cards, refunds and
-- reversals, disabled tokens. Money is bigint minor units; what may still be refunded is kept by
-- the database (refund_balances' CHECK), so refunds that race can never exceed the payment.

-- A saved card is the token of an approved submission (a tokenize link, or a pay-and-save link);
-- the merchant is the link's. These indexes find a token and a payment by what the API is given.
CREATE INDEX submissions_by_token ON submissions (token) WHERE token IS NOT NULL;
CREATE INDEX submissions_by_payfac_reference ON submissions (payfac_reference) WHERE payfac_reference IS NOT NULL;

-- Disabling is final and recorded once: the row's insert is what sends the one TokenDisabled.
CREATE TABLE disabled_tokens (
  token        text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  disabled_at  timestamptz NOT NULL DEFAULT now()
);

-- A charge of a saved card. Recorded as pending before the processor is called; its id is the
-- checkoutReference and the processor's idempotency key for this charge.
CREATE TABLE token_payments (
  id                         text PRIMARY KEY,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  terminal_identifier        text NOT NULL REFERENCES terminals (terminal_identifier),
  token                      text NOT NULL,
  -- The merchant's own reference (the request's `reference`), sent back as merchantReference.
  merchant_reference         text NOT NULL,
  amount                     bigint NOT NULL CHECK (amount > 0),
  currency                   text NOT NULL,
  -- pending while the processor is called; then approved, declined, or failed (outcome unknown, reversed).
  state                      text NOT NULL DEFAULT 'pending',
  payfac_reference           text UNIQUE,
  auth_code                  text,
  reason                     text,
  recurring_processing_model text,
  -- Accepted and stored as the e-commerce plugins send them.
  shopper_ip                 text,
  origin                     text,
  channel                    text,
  return_url                 text,
  -- Never the card number: what the saved card's submission kept.
  card_brand                 text,
  card_masked                text,
  card_last4                 text,
  card_expiry                text,
  card_usage                 text,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  completed_at               timestamptz
);
CREATE INDEX token_payments_pending ON token_payments (created_at) WHERE state = 'pending';
CREATE INDEX token_payments_by_merchant ON token_payments (merchant_id, created_at DESC);

-- What of an authorised payment (link sale or token payment) is refunded, and what is reserved by
-- refunds whose processor call is under way. A refund reserves with one conditional UPDATE; the
-- CHECK is the last word if any code ever forgot the condition.
CREATE TABLE refund_balances (
  payfac_reference  text PRIMARY KEY,
  merchant_id       text NOT NULL REFERENCES merchants (id),
  amount            bigint NOT NULL CHECK (amount > 0),
  currency          text NOT NULL,
  refunded_amount   bigint NOT NULL DEFAULT 0,
  reserved_amount   bigint NOT NULL DEFAULT 0,
  CONSTRAINT refunds_within_payment CHECK (
    refunded_amount >= 0 AND reserved_amount >= 0 AND refunded_amount + reserved_amount <= amount
  )
);

-- One refund or reversal. Its payfac_reference is Paylink's own, made before the processor is
-- called, and the processor's idempotency key: a retried call never refunds twice.
CREATE TABLE refunds (
  payfac_reference           text PRIMARY KEY,
  original_payfac_reference  text NOT NULL REFERENCES refund_balances (payfac_reference),
  merchant_id                text NOT NULL REFERENCES merchants (id),
  kind                       text NOT NULL CHECK (kind IN ('refund', 'reversal')),
  amount                     bigint NOT NULL CHECK (amount > 0),
  currency                   text NOT NULL,
  merchant_reference         text,
  refund_reason              text,
  -- pending (reserved; the processor's answer not recorded yet), succeeded, failed (refused by the processor).
  state                      text NOT NULL DEFAULT 'pending',
  failure_reason             text,
  attempt_count              integer NOT NULL DEFAULT 0,
  -- When the reconciler may next ask the processor about a pending refund.
  next_attempt_at            timestamptz NOT NULL DEFAULT now(),
  created_at                 timestamptz NOT NULL DEFAULT now(),
  completed_at               timestamptz
);
CREATE INDEX refunds_by_payment ON refunds (original_payfac_reference, created_at);
CREATE INDEX refunds_pending ON refunds (next_attempt_at) WHERE state = 'pending';
