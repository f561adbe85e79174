-- +goose Up
-- refusal is the wallet's refusal that settled a buy-in, as the table's
-- wallet recorded it (a google.rpc.Status in protojson): a retry of the
-- sit-down under its key is answered with it, as a retry of one that went
-- through is answered with its seat — also when the refusal came in the
-- background, after the first answer was lost.
ALTER TABLE money_moves ADD COLUMN refusal TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE money_moves DROP COLUMN refusal;
