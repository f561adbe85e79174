-- +goose Up
-- A table's row (public state ~1 KB, sealed hand ~2.3 KB) is rewritten on
-- every action. Kept whole in the heap page (no TOAST below 8,160 bytes)
-- and with half of each page left free, the update stays on its page
-- (HOT: no index entries written) instead of writing the hand to TOAST
-- and a new index entry each time. PostgreSQL only: SQLite has no such
-- parameters (sqlstore: a file named .postgres.sql runs on PostgreSQL
-- alone).
ALTER TABLE tables SET (toast_tuple_target = 8160, fillfactor = 50);

-- +goose Down
ALTER TABLE tables RESET (toast_tuple_target, fillfactor);
