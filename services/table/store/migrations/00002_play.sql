-- +goose Up
ALTER TABLE tables ADD COLUMN currency TEXT NOT NULL DEFAULT 'EUR';
ALTER TABLE tables ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
-- state is the dealer's public state (seats, positions, clock) as JSON;
-- hand is the hand in progress (deck, hole cards), sealed (AES-GCM).
ALTER TABLE tables ADD COLUMN state TEXT;
ALTER TABLE tables ADD COLUMN hand BYTEA;
ALTER TABLE tables ADD COLUMN closing BOOLEAN NOT NULL DEFAULT FALSE;

-- decks are stored sealed before the first card of a hand is dealt, so a
-- recovery deals the same deck and never reshuffles.
CREATE TABLE decks (
    table_id TEXT NOT NULL,
    hand_no  BIGINT NOT NULL,
    deck     BYTEA NOT NULL,
    PRIMARY KEY (table_id, hand_no)
);

-- hands are finished hands: the sealed history (setup, events, final state).
CREATE TABLE hands (
    table_id       TEXT NOT NULL,
    hand_no        BIGINT NOT NULL,
    started_at_ms  BIGINT NOT NULL,
    ended_at_ms    BIGINT NOT NULL,
    history        BYTEA NOT NULL,
    PRIMARY KEY (table_id, hand_no)
);

-- hand_players indexes hands by player, for "my recent hands".
CREATE TABLE hand_players (
    player_id   TEXT NOT NULL,
    table_id    TEXT NOT NULL,
    hand_no     BIGINT NOT NULL,
    seat        INTEGER NOT NULL,
    net         BIGINT NOT NULL,
    ended_at_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, table_id, hand_no)
);
CREATE INDEX hand_players_recent ON hand_players (player_id, ended_at_ms);

-- money_moves are the table's side of the wallet sagas: buy-ins and
-- top-ups (hold → seat → commit) and cash-outs, retried after a crash
-- until done.
CREATE TABLE money_moves (
    key        TEXT PRIMARY KEY,
    table_id   TEXT NOT NULL,
    kind       TEXT NOT NULL, -- buy_in | top_up | cash_out
    player_id  TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    amount     BIGINT NOT NULL,
    hold_id    TEXT NOT NULL DEFAULT '',
    done       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX money_moves_pending ON money_moves (table_id, done);

-- audit records floor and dealer rulings (TP-02, TP-60).
CREATE TABLE audit (
    id        TEXT PRIMARY KEY,
    table_id  TEXT NOT NULL,
    hand_no   BIGINT NOT NULL,
    actor     TEXT NOT NULL,
    role      TEXT NOT NULL,
    action    TEXT NOT NULL,
    seat      INTEGER NOT NULL,
    reason    TEXT NOT NULL,
    at_ms     BIGINT NOT NULL
);

-- +goose Down
DROP TABLE audit;
DROP TABLE money_moves;
DROP TABLE hand_players;
DROP TABLE hands;
DROP TABLE decks;
ALTER TABLE tables DROP COLUMN closing;
ALTER TABLE tables DROP COLUMN hand;
ALTER TABLE tables DROP COLUMN state;
ALTER TABLE tables DROP COLUMN settings;
ALTER TABLE tables DROP COLUMN currency;
