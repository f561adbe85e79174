-- +goose Up
-- Entry revisions: every transaction that writes entries takes the next
-- revision of its tournament (entries_rev) and stamps the entries it
-- writes with it, so the director reads only the entries changed since
-- the seating it keeps (EntriesSince) instead of every entry after every
-- hand.
ALTER TABLE tournaments ADD COLUMN entries_rev BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tournament_entries ADD COLUMN rev BIGINT NOT NULL DEFAULT 0;
CREATE INDEX tournament_entries_by_rev ON tournament_entries (tournament_id, rev);

-- +goose Down
DROP INDEX tournament_entries_by_rev;
ALTER TABLE tournament_entries DROP COLUMN rev;
ALTER TABLE tournaments DROP COLUMN entries_rev;
