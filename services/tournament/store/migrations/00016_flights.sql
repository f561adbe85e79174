-- +goose Up
-- Multi-day events (issue 13): the Day 2 a Day 1 flight feeds, and the
-- stacks each flight bagged at the end of its day, as its tables counted
-- them.
ALTER TABLE tournaments ADD COLUMN day2_id TEXT NOT NULL DEFAULT '';
CREATE INDEX tournaments_by_day2 ON tournaments (day2_id);

CREATE TABLE tournament_bags (
    flight_id    TEXT NOT NULL REFERENCES tournaments (id),
    player_id    TEXT NOT NULL,
    day2_id      TEXT NOT NULL,
    chips        BIGINT NOT NULL CHECK (chips > 0),
    table_no     INTEGER NOT NULL,
    seat_no      INTEGER NOT NULL,
    bagged_at_ms BIGINT NOT NULL,
    PRIMARY KEY (flight_id, player_id)
);
CREATE INDEX tournament_bags_by_day2 ON tournament_bags (day2_id);

-- +goose Down
DROP TABLE tournament_bags;
DROP INDEX tournaments_by_day2;
ALTER TABLE tournaments DROP COLUMN day2_id;
