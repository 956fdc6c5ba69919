-- Users, roles and sign-in security (docs/portal.md#users-and-roles, #two-factor-sign-in,
-- #sessions). Every user who existed before roles could do everything: they become owners.
ALTER TABLE portal_users ADD COLUMN role text NOT NULL DEFAULT 'owner'
  CHECK (role IN ('owner', 'admin', 'developer', 'support', 'viewer'));
ALTER TABLE portal_users ALTER COLUMN role DROP DEFAULT;

-- TOTP: the secret sealed under the keyring (never in clear), set at enrolment and live once
-- confirmed (two_factor_enabled_at); the last time step a code was accepted for, so a code is
-- never accepted twice.
ALTER TABLE portal_users ADD COLUMN totp_secret_sealed text;
ALTER TABLE portal_users ADD COLUMN two_factor_enabled_at timestamptz;
ALTER TABLE portal_users ADD COLUMN totp_last_step bigint;

-- The ten one-time recovery codes of a user with two-factor sign-in: SHA-256 only.
CREATE TABLE portal_recovery_codes (
  user_id    text NOT NULL REFERENCES portal_users (id) ON DELETE CASCADE,
  code_hash  text NOT NULL,
  used_at    timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- Owners' security settings: everyone must use two-factor sign-in; what support may refund at
-- most per refund, per currency (no row: support may not refund in that currency).
ALTER TABLE merchants ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;
CREATE TABLE merchant_refund_limits (
  merchant_id  text NOT NULL REFERENCES merchants (id),
  currency     text NOT NULL,
  amount       bigint NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (merchant_id, currency)
);

-- The session list: a public id (never the token's hash) to end one by, and where it came from.
-- A session between the password and the second factor can do nothing but finish signing in.
ALTER TABLE portal_sessions ADD COLUMN id text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');
CREATE UNIQUE INDEX portal_sessions_id ON portal_sessions (id);
ALTER TABLE portal_sessions ADD COLUMN address text;
ALTER TABLE portal_sessions ADD COLUMN user_agent text;
ALTER TABLE portal_sessions ADD COLUMN second_factor_pending boolean NOT NULL DEFAULT false;
