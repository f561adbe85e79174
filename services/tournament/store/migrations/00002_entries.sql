-- +goose Up
-- The house's published settings (entry policy, structure sheet, payouts)
-- as JSON, and the level clock.
ALTER TABLE tournaments ADD COLUMN rules TEXT NOT NULL DEFAULT '';
ALTER TABLE tournaments ADD COLUMN clock_started_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN clock_paused_at_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN clock_paused_ms BIGINT NOT NULL DEFAULT 0;

CREATE TABLE tournament_entries (
    tournament_id    TEXT NOT NULL REFERENCES tournaments (id),
    player_id        TEXT NOT NULL,
    status           INTEGER NOT NULL,
    rebuys           INTEGER NOT NULL DEFAULT 0,
    add_on           BOOLEAN NOT NULL DEFAULT FALSE,
    withdrawals      INTEGER NOT NULL DEFAULT 0,
    registered_at_ms BIGINT NOT NULL,
    transfer_id      TEXT NOT NULL DEFAULT '',
    table_no         INTEGER NOT NULL DEFAULT 0,
    seat_no          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, player_id)
);

-- Saga steps towards the wallet: one row per idempotency key, pending until
-- the wallet answers.
CREATE TABLE tournament_payments (
    idempotency_key TEXT PRIMARY KEY,
    tournament_id   TEXT NOT NULL REFERENCES tournaments (id),
    player_id       TEXT NOT NULL DEFAULT '',
    kind            INTEGER NOT NULL,
    currency        TEXT NOT NULL,
    prize_part      BIGINT NOT NULL DEFAULT 0,
    fee             BIGINT NOT NULL DEFAULT 0,
    amount          BIGINT NOT NULL DEFAULT 0,
    place           INTEGER NOT NULL DEFAULT 0,
    target_event_id TEXT NOT NULL DEFAULT '',
    voucher_id      TEXT NOT NULL DEFAULT '',
    chips           BIGINT NOT NULL DEFAULT 0,
    state           INTEGER NOT NULL,
    transfer_id     TEXT NOT NULL DEFAULT '',
    failure         TEXT NOT NULL DEFAULT '',
    created_at_ms   BIGINT NOT NULL
);
CREATE INDEX tournament_payments_by_event ON tournament_payments (tournament_id, state);

-- The draw log (TR-06, TR-07): every seat and button draw as it was made.
CREATE TABLE tournament_draws (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    seq           INTEGER NOT NULL,
    kind          TEXT NOT NULL,
    record        TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);

-- +goose Down
DROP TABLE tournament_draws;
DROP TABLE tournament_payments;
DROP TABLE tournament_entries;
ALTER TABLE tournaments DROP COLUMN clock_paused_ms;
ALTER TABLE tournaments DROP COLUMN clock_paused_at_ms;
ALTER TABLE tournaments DROP COLUMN clock_started_ms;
ALTER TABLE tournaments DROP COLUMN rules;
