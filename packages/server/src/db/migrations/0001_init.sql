-- Paylink's first schema. Money is bigint minor units; every counter changes only through
-- single atomic UPDATE statements; status is derived when read (docs/api.md#status), never stored.

CREATE TABLE merchants (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE terminals (
  terminal_identifier text PRIMARY KEY,
  merchant_id         text NOT NULL REFERENCES merchants (id),
  name                text NOT NULL DEFAULT '',
  -- NULL: any ISO 4217 currency; otherwise the only currencies this terminal accepts.
  currencies          text[],
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX terminals_by_merchant ON terminals (merchant_id);

CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  name         text NOT NULL DEFAULT '',
  -- SHA-256 of the whole key: keys are 190-bit random, so a fast hash cannot be brute-forced.
  key_hash     text NOT NULL UNIQUE,
  -- The first characters, so a merchant can tell keys apart in the portal.
  key_prefix   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE INDEX api_keys_by_merchant ON api_keys (merchant_id);

CREATE TABLE themes (
  theme_key     text PRIMARY KEY,
  merchant_id   text NOT NULL REFERENCES merchants (id),
  name          text NOT NULL,
  primary_color text,
  logo_url      text,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX themes_by_merchant ON themes (merchant_id);

CREATE TABLE portal_users (
  id            text PRIMARY KEY,
  merchant_id   text NOT NULL REFERENCES merchants (id),
  email         text NOT NULL,
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX portal_users_email ON portal_users (lower(email));

CREATE TABLE payment_links (
  reference                  text PRIMARY KEY,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  terminal_identifier        text NOT NULL REFERENCES terminals (terminal_identifier),
  type                       text NOT NULL CHECK (type IN ('PayByLink', 'TokenizeByLink')),
  amount                     bigint NOT NULL CHECK (amount >= 0),
  currency                   text NOT NULL,
  items                      jsonb NOT NULL,
  shopper_info               jsonb NOT NULL,
  recurring_processing_model text,
  culture                    text NOT NULL,
  theme_key                  text REFERENCES themes (theme_key),
  description                text NOT NULL DEFAULT '',
  return_url                 text,
  valid_until                timestamptz,
  max_sales_count            integer CHECK (max_sales_count IS NULL OR max_sales_count >= 1),
  sales_count                integer NOT NULL DEFAULT 0,
  visit_count                bigint NOT NULL DEFAULT 0,
  disabled                   boolean NOT NULL DEFAULT false,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now(),
  -- The sale cap is the database's to keep, whatever the application does.
  CONSTRAINT sales_within_cap CHECK (max_sales_count IS NULL OR sales_count <= max_sales_count)
);
CREATE INDEX payment_links_by_merchant_newest ON payment_links (merchant_id, created_at DESC, reference DESC);

CREATE TABLE submissions (
  -- The checkoutReference the shopper's return URL and the webhook carry.
  id                text PRIMARY KEY,
  link_reference    text NOT NULL REFERENCES payment_links (reference),
  answers           jsonb NOT NULL,
  amount            bigint NOT NULL,
  currency          text NOT NULL,
  -- pending while the processor is called; then approved, declined or failed.
  state             text NOT NULL DEFAULT 'pending',
  completed         boolean NOT NULL DEFAULT false,
  token             text,
  payfac_reference  text,
  auth_code         text,
  reason            text,
  -- Never the card number or CVC: only what a receipt may show.
  card_brand        text,
  card_masked       text,
  card_last4        text,
  card_expiry       text,
  card_usage        text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  completed_at      timestamptz
);
CREATE INDEX submissions_by_link ON submissions (link_reference, created_at);

CREATE TABLE idempotency_keys (
  merchant_id     text NOT NULL REFERENCES merchants (id),
  key             text NOT NULL,
  request_hash    text NOT NULL,
  -- running until the first response is stored; then done and replayed.
  state           text NOT NULL DEFAULT 'running',
  response_status integer,
  response_body   text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
