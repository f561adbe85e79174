-- +goose Up
-- Which table-service table plays each tournament table (AttachTable): the
-- tournament consumes table.hand_ended for these tables only. A table plays
-- for one tournament table at a time, hence the unique table_id.
CREATE TABLE tournament_tables (
    tournament_id  TEXT NOT NULL REFERENCES tournaments (id),
    table_no       INTEGER NOT NULL,
    table_id       TEXT NOT NULL UNIQUE,
    attached_at_ms BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, table_no)
);

-- +goose Down
DROP TABLE tournament_tables;
