-- Webhook endpoints and the transactional outbox (docs/webhooks.md). A delivery row is written in the
-- same transaction as the payment result it reports; the worker sends it afterwards.

CREATE TABLE webhook_endpoints (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  url          text NOT NULL,
  -- Sent verbatim as the Authorization header; encrypted at rest (see webhooks/secrets).
  api_key      text NOT NULL,
  -- 64 hex characters, the HMAC key (docs/webhooks.md#endpoints); encrypted at rest.
  hmac_key     text NOT NULL,
  enabled      boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_by_merchant ON webhook_endpoints (merchant_id);

CREATE TABLE webhook_deliveries (
  -- Also the Standard Webhooks webhook-id: stable across retries.
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants (id),
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id),
  event_type       text NOT NULL,
  -- The message of docs/webhooks.md#the-message without hmacSignature, which is computed at send time.
  payload          jsonb NOT NULL,
  -- pending (due at next_attempt_at), delivered, failed (retries exhausted).
  state            text NOT NULL DEFAULT 'pending',
  attempt_count    integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  -- A worker that claimed the row owns it until then; after that another may take it over.
  lease_until      timestamptz,
  last_status_code integer,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_merchant ON webhook_deliveries (merchant_id, created_at DESC);

CREATE TABLE webhook_attempts (
  id               bigserial PRIMARY KEY,
  delivery_id      text NOT NULL REFERENCES webhook_deliveries (id),
  attempted_at     timestamptz NOT NULL DEFAULT now(),
  status_code      integer,
  latency_ms       integer NOT NULL,
  -- First 1 KB of the receiver's answer, or the network error.
  response_excerpt text,
  error            text
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, attempted_at);
