-- One-time links of the portal (docs/portal.md#invitations): invitations to join a merchant's portal
-- and password resets. Only the token's SHA-256 is kept: a reader of the table can use no link.
CREATE TABLE portal_invitations (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'support', 'viewer')),
  language     text NOT NULL CHECK (language IN ('is', 'en')),
  token_hash   text NOT NULL UNIQUE,
  invited_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  revoked_at   timestamptz
);
-- The users page lists a merchant's open invitations.
CREATE INDEX portal_invitations_by_merchant ON portal_invitations (merchant_id, created_at);

CREATE TABLE portal_password_resets (
  token_hash  text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES portal_users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX portal_password_resets_by_user ON portal_password_resets (user_id);
