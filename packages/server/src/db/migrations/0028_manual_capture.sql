-- Manual capture of session payments (docs/api.md#capture-and-adjust). The balance row of a
-- payment (refund_balances) also keeps what of its authorisation is captured, so a capture, a
-- refund and a reversal of one payment queue on one row and never pass each other. Ordinary
-- payments leave the new columns NULL: they were captured with their authorisation.

-- NULL: captured in full at authorisation. Otherwise what the captures that succeeded took.
ALTER TABLE refund_balances ADD COLUMN captured_amount bigint;
-- Held by captures whose processor answer is not in yet.
ALTER TABLE refund_balances ADD COLUMN capture_reserved_amount bigint NOT NULL DEFAULT 0;
-- When the payment was authorised: an uncaptured manual authorisation lapses 7 days later.
ALTER TABLE refund_balances ADD COLUMN authorised_at timestamptz;
-- captureHoursDelay: the processor captures the whole authorisation at this time by itself.
ALTER TABLE refund_balances ADD COLUMN auto_capture_at timestamptz;
-- Set by a reversal: what was not captured is released and can no longer be captured.
ALTER TABLE refund_balances ADD COLUMN released_at timestamptz;
-- Whether the authorisation may be adjusted (a session's isPreAuth).
ALTER TABLE refund_balances ADD COLUMN pre_auth boolean NOT NULL DEFAULT false;
ALTER TABLE refund_balances ADD CONSTRAINT captures_within_authorisation CHECK (
  capture_reserved_amount >= 0 AND (captured_amount IS NULL OR (captured_amount >= 0 AND captured_amount + capture_reserved_amount <= amount))
);

-- One capture or adjustment of an authorisation. Its payfac_reference is Paylink's own, made before
-- the processor is called, and the processor's idempotency key. A capture's amount is what it
-- takes; an adjustment's is the new authorised total.
CREATE TABLE captures (
  payfac_reference           text PRIMARY KEY,
  original_payfac_reference  text NOT NULL REFERENCES refund_balances (payfac_reference),
  merchant_id                text NOT NULL REFERENCES merchants (id),
  kind                       text NOT NULL CHECK (kind IN ('capture', 'adjustment')),
  amount                     bigint NOT NULL CHECK (amount > 0),
  currency                   text NOT NULL,
  merchant_reference         text,
  -- reserved (the processor not asked or not answered yet), approved, declined; unknown: asked,
  -- no answer, still reserved and asked again by the reconciler.
  state                      text NOT NULL DEFAULT 'reserved' CHECK (state IN ('reserved', 'approved', 'declined', 'unknown')),
  failure_reason             text,
  attempt_count              integer NOT NULL DEFAULT 0,
  next_attempt_at            timestamptz NOT NULL DEFAULT now(),
  created_at                 timestamptz NOT NULL DEFAULT now(),
  decided_at                 timestamptz
);
CREATE INDEX captures_by_payment ON captures (original_payfac_reference, created_at);
CREATE INDEX captures_undecided ON captures (next_attempt_at) WHERE state IN ('reserved', 'unknown');
