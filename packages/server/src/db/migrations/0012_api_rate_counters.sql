-- The API rate limit shared by every instance on one PostgreSQL (docs/decisions.md docs/decisions.md#rate-limits): one row
-- per key and fixed one-minute window, incremented by a single atomic upsert. UNLOGGED: counters
-- are worth nothing after a crash, and skipping the write-ahead log makes each increment cheaper.
CREATE UNLOGGED TABLE api_rate_counters (
  key           text NOT NULL,
  window_start  timestamptz NOT NULL,
  count         integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
