-- A decline on a real processor's page ends nothing (the shopper may try another card there), but
-- the merchant is told of it as with Paylink's own form: one Authorization webhook with success
-- "false" per decline. Each decline the processor reported is kept once, so the same notification
-- sent again tells the merchant nothing new.
CREATE TABLE hosted_declines (
  payfac_reference   text PRIMARY KEY,
  checkout_reference text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);
