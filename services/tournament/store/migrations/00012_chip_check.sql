-- +goose Up
-- The director's last chip count of each tournament (chips at the tables
-- and in transit against chips issued): its status shows it and the
-- wallet's audit reports a difference, so it outlives the process.
CREATE TABLE tournament_chip_checks (
    tournament_id  TEXT PRIMARY KEY REFERENCES tournaments (id),
    chips_issued   BIGINT NOT NULL,
    chips_counted  BIGINT NOT NULL,
    counted_at_ms  BIGINT NOT NULL
);

-- +goose Down
DROP TABLE tournament_chip_checks;
