-- +goose Up
CREATE TABLE tables (
    id            TEXT PRIMARY KEY,
    epoch         BIGINT NOT NULL DEFAULT 0,
    name          TEXT NOT NULL,
    config        TEXT NOT NULL, -- engine.Config as JSON
    seats         INTEGER NOT NULL CHECK (seats BETWEEN 2 AND 10),
    kind          INTEGER NOT NULL,
    closed        BOOLEAN NOT NULL DEFAULT FALSE,
    created_at_ms BIGINT NOT NULL
);

-- +goose Down
DROP TABLE tables;
