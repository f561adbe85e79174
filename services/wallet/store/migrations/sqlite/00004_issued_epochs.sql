-- +goose Up
-- issued is the highest fencing epoch the table service has confirmed it
-- issued for the table. The wallet takes a table's write only with an
-- epoch no higher than it (asking the table service when a higher one
-- comes), so a caller's own number, 2^63-1 say, can never fence a table
-- out. Rows of before this migration start at 0: the next write of each
-- table asks, and an epoch recorded above what was issued is brought back
-- down to it.
ALTER TABLE table_epochs ADD COLUMN issued BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE table_epochs DROP COLUMN issued;
