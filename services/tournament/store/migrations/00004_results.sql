-- +goose Up
-- Hands a player still sits out under a missed-hand penalty (TR-33); kept
-- per entry so the count carries across table moves.
ALTER TABLE tournament_entries ADD COLUMN hands_to_miss INTEGER NOT NULL DEFAULT 0;

-- Finishing places in the order they were given (TR-37, TR-34).
CREATE TABLE tournament_finishes (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id     TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    place         INTEGER NOT NULL,
    shared        INTEGER NOT NULL,
    removed       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);

-- Penalty history per player (TR-32, TR-33, G-27).
CREATE TABLE tournament_penalties (
    tournament_id  TEXT NOT NULL REFERENCES tournaments (id),
    player_id      TEXT NOT NULL,
    seq            INTEGER NOT NULL,
    type           INTEGER NOT NULL,
    reason         TEXT NOT NULL,
    issued_by      TEXT NOT NULL,
    hand           BIGINT NOT NULL DEFAULT 0,
    rounds         INTEGER NOT NULL DEFAULT 0,
    hands_to_miss  INTEGER NOT NULL DEFAULT 0,
    override       BOOLEAN NOT NULL DEFAULT FALSE,
    issued_at_ms   BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, player_id, seq)
);

-- +goose Down
DROP TABLE tournament_penalties;
DROP TABLE tournament_finishes;
ALTER TABLE tournament_entries DROP COLUMN hands_to_miss;
