-- +goose Up
-- G-21: who holds a seat (seated, or an accepted offer held for the
-- sit-down) in which game. It is written in the transaction that saves the
-- game, and the primary key on the player is what stops two offers in two
-- games from both being accepted at the same moment: the second insert
-- waits for the first transaction and then finds the player taken. It
-- also spares every change reading every other game to learn who is
-- seated elsewhere. Games saved before this table existed are indexed
-- when the seating service starts.
CREATE TABLE seat_holders (
    player_id   TEXT PRIMARY KEY,
    waitlist_id TEXT NOT NULL,
    table_id    TEXT NOT NULL
);
CREATE INDEX seat_holders_by_list ON seat_holders (waitlist_id);

-- +goose Down
DROP TABLE seat_holders;
