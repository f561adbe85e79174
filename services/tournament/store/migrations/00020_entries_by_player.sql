-- +goose Up
-- A player's history (issue 13) reads their entries across every event:
-- without this index each read scans every entry the room ever took.
CREATE INDEX tournament_entries_by_player ON tournament_entries (player_id);

-- +goose Down
DROP INDEX tournament_entries_by_player;
