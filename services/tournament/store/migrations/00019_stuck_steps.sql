-- +goose Up
-- The director's steps that keep failing (a recovery pass, a table's hand
-- end): the tournament's status shows them until they succeed, so they
-- outlive the process that saw them fail.
CREATE TABLE tournament_stuck_steps (
    tournament_id  TEXT NOT NULL REFERENCES tournaments (id),
    step           TEXT NOT NULL,
    kind           TEXT NOT NULL,
    error          TEXT NOT NULL,
    attempts       INTEGER NOT NULL,
    since_ms       BIGINT NOT NULL,
    last_ms        BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, step)
);

-- +goose Down
DROP TABLE tournament_stuck_steps;
