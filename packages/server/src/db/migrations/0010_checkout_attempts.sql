-- The checkout's card-testing brake (issue #12): payment attempts per client and link in a fixed
-- window, counted in the database so that posts sent at once cannot all pass a check made before
-- any of them was counted, and so that every instance on one PostgreSQL shares the count.
-- client_key is a keyed hash of the client's address (never the address itself); in_flight counts
-- attempts at the processor, failures the declines and rejected forms of the window.
CREATE TABLE checkout_attempts (
  client_key      text NOT NULL,
  link_reference  text NOT NULL,
  failures        integer NOT NULL DEFAULT 0,
  in_flight       integer NOT NULL DEFAULT 0,
  window_ends_at  timestamptz NOT NULL,
  PRIMARY KEY (client_key, link_reference)
);
-- The clean-up finds ended windows by their end.
CREATE INDEX checkout_attempts_window_ends ON checkout_attempts (window_ends_at);
