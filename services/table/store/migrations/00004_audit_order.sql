-- +goose Up
-- seq orders a table's rulings as they were recorded. One entry can make
-- several rulings in the same millisecond (an out-of-turn wager re-ruled
-- as the skipped seats act), and ids are random, so at_ms and id alone
-- cannot give ListRulings its order. Rows from before keep seq 0 and sort
-- first, by time.
ALTER TABLE audit ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX audit_table_seq ON audit (table_id, seq);

-- +goose Down
DROP INDEX audit_table_seq;
ALTER TABLE audit DROP COLUMN seq;
