-- A saved-card charge at a real processor may need the shopper (3-D Secure) before it is decided:
-- the processor's page for that is kept here while the charge waits, and the processor's
-- notification decides it. Null for charges decided at once (all of the sandbox's).
ALTER TABLE token_payments ADD COLUMN shopper_redirect_url text;
