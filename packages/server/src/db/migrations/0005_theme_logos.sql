-- Theme logos are kept by Paylink and served from its own origin (the checkout makes no
-- third-party request). logo_sha256 versions the logo's URL so browsers may cache it for long.
ALTER TABLE themes ADD COLUMN logo_content_type text;
ALTER TABLE themes ADD COLUMN logo_bytes bytea;
ALTER TABLE themes ADD COLUMN logo_sha256 text;
