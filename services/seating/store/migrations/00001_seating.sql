-- +goose Up
-- One row per game: the whole seating state of the game (waitlist.Game as
-- JSON) is one aggregate, locked and fenced as a unit.
CREATE TABLE waitlists (
    id            TEXT PRIMARY KEY,
    epoch         BIGINT NOT NULL DEFAULT 0,
    game_key      TEXT NOT NULL UNIQUE,
    state         TEXT NOT NULL,
    version       BIGINT NOT NULL DEFAULT 0,
    next_due_ms   BIGINT, -- earliest offer expiry or absence due; NULL when no timer runs
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX waitlists_next_due ON waitlists (next_due_ms);

-- Which game a table belongs to, for table events and table-addressed RPCs.
CREATE TABLE seating_tables (
    table_id    TEXT PRIMARY KEY,
    waitlist_id TEXT NOT NULL
);

-- CS-14: one long break per player per gaming day, across every game.
CREATE TABLE long_breaks (
    player_id     TEXT NOT NULL,
    gaming_day    TEXT NOT NULL,
    waitlist_id   TEXT NOT NULL,
    table_id      TEXT NOT NULL,
    started_at_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, gaming_day)
);

-- Every decision the floor made about a game.
CREATE TABLE floor_decisions (
    id          TEXT PRIMARY KEY,
    waitlist_id TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    floor_id    TEXT NOT NULL,
    action      TEXT NOT NULL,
    player_id   TEXT NOT NULL,
    reason      TEXT NOT NULL
);
CREATE INDEX floor_decisions_by_list ON floor_decisions (waitlist_id, at_ms);

-- +goose Down
DROP TABLE floor_decisions;
DROP TABLE long_breaks;
DROP TABLE seating_tables;
DROP TABLE waitlists;
