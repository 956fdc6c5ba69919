-- A processor per terminal (docs/processors.md): the sandbox by default; a real processor's
-- non-secret settings in clear, its secrets encrypted under the keyring.
ALTER TABLE terminals ADD COLUMN processor_type text NOT NULL DEFAULT 'sandbox'
  CHECK (processor_type IN ('sandbox', 'straumur', 'adyen', 'stripe'));
ALTER TABLE terminals ADD COLUMN processor_settings jsonb;
ALTER TABLE terminals ADD COLUMN processor_secrets text;
