-- +goose Up
-- The note a saga step sends the wallet besides its amounts (a refund's
-- reason): a retry must send the same request under the same key.
ALTER TABLE tournament_payments ADD COLUMN note TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tournament_payments DROP COLUMN note;
