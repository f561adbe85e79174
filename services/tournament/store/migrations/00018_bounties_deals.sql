-- +goose Up
-- Knockout heads (G-36) that differ from the event's bounty: a
-- progressive knockout adds half of each head won to the winner's own.
-- A player knocked out loses their row, so a re-entry starts again at the
-- bounty.
CREATE TABLE tournament_heads (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id     TEXT NOT NULL,
    head          BIGINT NOT NULL CHECK (head >= 0),
    PRIMARY KEY (tournament_id, player_id)
);
-- Deal proposals (TR-38), numbered per event; the highest is in force.
-- The proposal with its players' answers is JSON (store.Deal).
CREATE TABLE tournament_deals (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    deal_id       INTEGER NOT NULL,
    deal          TEXT NOT NULL,
    PRIMARY KEY (tournament_id, deal_id)
);

-- +goose Down
DROP TABLE tournament_deals;
DROP TABLE tournament_heads;
