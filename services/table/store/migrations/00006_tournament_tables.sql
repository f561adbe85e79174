-- +goose Up
-- tournament_id binds a tournament table to its tournament (empty for a
-- cash table): the tournament service opens it and controls it.
ALTER TABLE tables ADD COLUMN tournament_id TEXT NOT NULL DEFAULT '';
CREATE INDEX tables_tournament ON tables (tournament_id);

-- tournament_controls are the idempotency keys of the tournament's keyed
-- controls, each written in the fenced transaction of the change it made,
-- with a fingerprint of the request: a repeat is answered, never applied
-- twice, and a key reused for another request is refused.
CREATE TABLE tournament_controls (
    key           TEXT PRIMARY KEY,
    table_id      TEXT NOT NULL,
    kind          TEXT NOT NULL,
    fingerprint   TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);

-- tournament_entrants is where each entrant of a tournament is: at a table
-- (table_id, seat), or in transit (table_id '' and move_id). The tables
-- write it in the fenced transaction of each seat change, so the primary
-- key refuses a second seat for one entrant anywhere in the tournament
-- (TR-06), whichever replicas run the tables.
CREATE TABLE tournament_entrants (
    tournament_id TEXT NOT NULL,
    player_id     TEXT NOT NULL,
    table_id      TEXT NOT NULL,
    seat          INTEGER NOT NULL,
    move_id       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_entrants_table ON tournament_entrants (table_id);

-- tournament_moves are the moves between a tournament's tables (TR-23):
-- table A writes the move (pending, then in transit with the chips) in its
-- fenced transaction, table B delivers it in its own; each step changes
-- the state conditionally, so the chips are on A, in transit or on B,
-- exactly once. state: 1 pending, 2 in transit, 3 arriving (a live seat
-- held until the dealer confirms), 4 delivered, 5 cancelled.
CREATE TABLE tournament_moves (
    move_id         TEXT PRIMARY KEY,
    tournament_id   TEXT NOT NULL,
    player_id       TEXT NOT NULL,
    from_table_id   TEXT NOT NULL,
    from_seat       INTEGER NOT NULL,
    to_table_id     TEXT NOT NULL,
    to_seat         INTEGER NOT NULL,
    state           INTEGER NOT NULL,
    chips           BIGINT NOT NULL DEFAULT 0,
    missed_hands    INTEGER NOT NULL DEFAULT 0,
    left_tournament BOOLEAN NOT NULL DEFAULT FALSE,
    created_at_ms   BIGINT NOT NULL,
    updated_at_ms   BIGINT NOT NULL
);
CREATE INDEX tournament_moves_order ON tournament_moves (tournament_id, created_at_ms, move_id);

-- tournament_hands are the reports of a tournament table's hands, as
-- table.hand_ended published them (HandEnded, protobuf), written in the
-- transaction that ends the hand.
CREATE TABLE tournament_hands (
    table_id TEXT NOT NULL,
    hand_no  BIGINT NOT NULL,
    report   BYTEA NOT NULL,
    PRIMARY KEY (table_id, hand_no)
);

-- +goose Down
DROP TABLE tournament_hands;
DROP TABLE tournament_moves;
DROP TABLE tournament_entrants;
DROP TABLE tournament_controls;
DROP INDEX tables_tournament;
ALTER TABLE tables DROP COLUMN tournament_id;
