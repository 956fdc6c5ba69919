-- A link's submissions in the order every reader shows them, (created_at, id): the API's read in
-- batches starts each batch after the last one's final submission, and with the older index on
-- (link_reference, created_at) alone the id was a filter, so every batch read again all the
-- submissions that share one instant (docs/decisions.md#big-link-reads: 40,000 at one instant read in 602 ms against 169 ms
-- at distinct instants). The older index served nothing this one does not; one index, not two,
-- is written for each submission.
CREATE INDEX IF NOT EXISTS submissions_by_link_in_order ON submissions (link_reference, created_at, id);
DROP INDEX IF EXISTS submissions_by_link;
