-- Chargebacks and disputes a real processor reports on a payment (docs/processors.md#disputes). Each
-- step the processor reports is kept once (the same notification again changes nothing); where a
-- dispute stands is its latest step by the processor's own time, so steps arriving out of order
-- still end in the right status.
CREATE TABLE dispute_steps (
  terminal_identifier text NOT NULL,
  event_reference     text NOT NULL,
  merchant_id         text NOT NULL,
  dispute_reference   text NOT NULL,
  payfac_reference    text NOT NULL,
  status              text NOT NULL CHECK (status IN ('Open', 'Won', 'Lost')),
  processor_event     text NOT NULL,
  amount              bigint,
  currency            text,
  reason              text NOT NULL DEFAULT '',
  occurred_at         timestamptz NOT NULL,
  recorded_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (terminal_identifier, event_reference)
);
CREATE INDEX dispute_steps_payment ON dispute_steps (merchant_id, payfac_reference);

-- A Dispute webhook goes only to endpoints that asked for it: the live gateway's receivers (and
-- the plugins written for them) refuse event types they do not know.
ALTER TABLE webhook_endpoints ADD COLUMN dispute_events boolean NOT NULL DEFAULT false;
