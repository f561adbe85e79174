-- +goose Up
-- A sitting is named by the buy-in that opened it (the committed hold's
-- ID), and a cash-out names the sitting it ends: a late cash-out of an
-- earlier seat at the table can then never close a later one. The primary
-- key (player, table_id) stays: one open sitting per player and table, so a
-- sit-down while the last sitting's cash-out has not arrived is refused
-- (CASH_OUT_PENDING, CS-09). Sittings opened before this migration are
-- named legacy/<player>, the name the table gives the seats it took then.
ALTER TABLE sittings ADD COLUMN id TEXT NOT NULL DEFAULT '';
UPDATE sittings SET id = 'legacy/' || player;
CREATE UNIQUE INDEX sittings_id ON sittings (table_id, id);

-- sitting_id is the sitting a top-up hold adds to; empty for a sit-down.
ALTER TABLE holds ADD COLUMN sitting_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE holds DROP COLUMN sitting_id;
DROP INDEX sittings_id;
ALTER TABLE sittings DROP COLUMN id;
