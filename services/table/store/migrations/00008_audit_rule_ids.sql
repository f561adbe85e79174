-- +goose Up
-- rule_ids are the rules a ruling applies (and the seed scenario it
-- matches), comma-separated ("TP-50,TP-50/S1"), stored with the ruling
-- rather than read back out of its action name, so that every ruling
-- names its rules (a revival TP-60, a called clock TP-59). Rows from
-- before keep '' and ListRulings reads their action name as it did.
ALTER TABLE audit ADD COLUMN rule_ids TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE audit DROP COLUMN rule_ids;
