-- +goose Up
-- hand_fixed is the part of the sealed hand in progress that stays the
-- same from the hand's deal to its end (its setup, button plan,
-- configuration and start), sealed once per hand; hand then holds only
-- what an action changes (the hand's state, its log). Every action still
-- writes the row whole, but PostgreSQL logs an update as what differs
-- between the row's two versions, and a blob sealed again differs
-- throughout: stored again byte for byte, as the last column of the row,
-- the fixed part stays out of the WAL. NULL between hands, and for a hand
-- stored before it was split (hand then holds all of it).
ALTER TABLE tables ADD COLUMN hand_fixed BYTEA;

-- +goose Down
ALTER TABLE tables DROP COLUMN hand_fixed;
