-- +goose Up
-- offer_id is the seating offer a buy-in was taken through: a buy-in made
-- in one wallet call announces its seat (table.player_seated, naming the
-- offer) only once the wallet has bought it, which may be the background
-- retry's doing, long after the request that carried the offer.
ALTER TABLE money_moves ADD COLUMN offer_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE money_moves DROP COLUMN offer_id;
