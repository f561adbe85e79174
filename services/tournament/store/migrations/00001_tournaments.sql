-- +goose Up
CREATE TABLE tournaments (
    id              TEXT PRIMARY KEY,
    epoch           BIGINT NOT NULL DEFAULT 0,
    name            TEXT NOT NULL,
    game            TEXT NOT NULL,
    structure       TEXT NOT NULL,
    format          INTEGER NOT NULL,
    currency        TEXT NOT NULL,
    prize_pool_part BIGINT NOT NULL CHECK (prize_pool_part > 0),
    fee_part        BIGINT NOT NULL CHECK (fee_part >= 0),
    starting_stack  BIGINT NOT NULL CHECK (starting_stack > 0),
    starts_at_ms    BIGINT NOT NULL,
    target_event_id TEXT NOT NULL DEFAULT '',
    status          INTEGER NOT NULL,
    created_at_ms   BIGINT NOT NULL
);
CREATE INDEX tournaments_by_start ON tournaments (starts_at_ms, id);

-- +goose Down
DROP TABLE tournaments;
