-- An Idempotency-Key's answer is written by the transaction of the operation's own effect
-- (docs/decisions.md docs/decisions.md#idempotency-keys). claim_token fences a claim: a request whose claim was taken over
-- cannot commit its effect. charge_reference names the saved-card charge a key is waiting on
-- (state 'applied': the card is at the processor, the answer not known yet).
ALTER TABLE idempotency_keys ADD COLUMN claim_token text;
ALTER TABLE idempotency_keys ADD COLUMN charge_reference text;
CREATE INDEX idempotency_keys_by_charge ON idempotency_keys (charge_reference) WHERE charge_reference IS NOT NULL;

-- Every payfacReference a payment holds (link sale or saved-card charge), once (docs/decisions.md#payfac-reference): written in
-- the transaction that records the processor's answer, so two payments can never share one.
CREATE TABLE payfac_references (
  payfac_reference  text PRIMARY KEY,
  -- 'link' (a submission) or 'token' (a saved-card charge), and that row's id.
  source            text NOT NULL CHECK (source IN ('link', 'token')),
  checkout_reference text NOT NULL
);
-- Existing payments, each reference once: should chance ever have given two payments one
-- reference, both rows stay as they are and the reference is registered once (a token charge's first).
INSERT INTO payfac_references (payfac_reference, source, checkout_reference)
  SELECT payfac_reference, 'token', id FROM token_payments WHERE payfac_reference IS NOT NULL
  ON CONFLICT (payfac_reference) DO NOTHING;
INSERT INTO payfac_references (payfac_reference, source, checkout_reference)
  SELECT payfac_reference, 'link', id FROM submissions WHERE payfac_reference IS NOT NULL
  ON CONFLICT (payfac_reference) DO NOTHING;
