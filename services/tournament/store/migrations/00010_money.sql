-- +goose Up
-- Re-entries after busting (G-23): each is an entry paid under its own key.
ALTER TABLE tournament_entries ADD COLUMN reentries INTEGER NOT NULL DEFAULT 0;
-- The wallet transfer an entry refund reverses (TR-04): the entry's, fixed
-- when the refund step is recorded so a retry refunds that entry and no
-- later one.
ALTER TABLE tournament_payments ADD COLUMN refund_of TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tournament_payments DROP COLUMN refund_of;
ALTER TABLE tournament_entries DROP COLUMN reentries;
