-- +goose Up
-- Each player's stack after their table's last hand, as the table reported
-- it (table.hand_ended): the lobby's chip counts, refreshed every hand. One
-- row per player, moved with them from table to table; the hand's end time
-- orders reports from different tables, so a late redelivery of an older
-- hand never overwrites a newer count.
CREATE TABLE tournament_stacks (
    tournament_id  TEXT NOT NULL REFERENCES tournaments (id),
    player_id      TEXT NOT NULL,
    table_id       TEXT NOT NULL,
    hand_no        BIGINT NOT NULL,
    stack          BIGINT NOT NULL,
    ended_at_ms    BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);

-- +goose Down
DROP TABLE tournament_stacks;
