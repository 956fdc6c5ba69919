-- The merchant portal (docs/portal.md): sessions kept in the database, so they survive restarts
-- and every instance sees them; failed sign-ins, so the brake holds across instances; and when an
-- API key was last used, for the portal's key list.

CREATE TABLE portal_sessions (
  -- SHA-256 of the cookie's random value: a copy of this table lets no one sign in.
  id_hash       text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES portal_users (id) ON DELETE CASCADE,
  merchant_id   text NOT NULL REFERENCES merchants (id),
  -- The synchronizer token every form of this session posts back.
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX portal_sessions_user ON portal_sessions (user_id);
CREATE INDEX portal_sessions_last_seen ON portal_sessions (last_seen_at);

CREATE TABLE portal_signin_failures (
  id         bigserial PRIMARY KEY,
  -- "account:<lower-cased e-mail>" or "address:<client address>"
  subject    text NOT NULL,
  failed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX portal_signin_failures_subject ON portal_signin_failures (subject, failed_at);

ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
