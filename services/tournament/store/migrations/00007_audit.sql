-- +goose Up
-- Management actions on an event (TR-03), who made them and why.
CREATE TABLE tournament_audit (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    seq           INTEGER NOT NULL,
    actor         TEXT NOT NULL,
    action        TEXT NOT NULL,
    detail        TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);

-- +goose Down
DROP TABLE tournament_audit;
