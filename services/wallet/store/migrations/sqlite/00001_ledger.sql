-- +goose Up
CREATE TABLE accounts (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL,
	owner TEXT NOT NULL,
	currency TEXT NOT NULL,
	balance BIGINT NOT NULL DEFAULT 0,
	-- entry_count numbers the account's entries (entries.seq) for statements.
	entry_count BIGINT NOT NULL DEFAULT 0,
	allow_negative BOOLEAN NOT NULL DEFAULT FALSE,
	created_at BIGINT NOT NULL,
	-- Only the cage may go negative; the conditional UPDATE refuses first,
	-- this is the last line of defence.
	CONSTRAINT balance_not_negative CHECK (allow_negative OR balance >= 0),
	CONSTRAINT only_cage_negative CHECK (NOT allow_negative OR kind = 'cage')
);

CREATE TABLE transfers (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL,
	currency TEXT NOT NULL,
	amount BIGINT NOT NULL CHECK (amount > 0),
	-- A transfer is reversed at most once.
	reverses TEXT UNIQUE REFERENCES transfers (id),
	player TEXT NOT NULL DEFAULT '',
	-- subject is the table or event the transfer was for.
	subject TEXT NOT NULL DEFAULT '',
	actor TEXT NOT NULL DEFAULT '',
	gaming_day TEXT NOT NULL,
	meta TEXT NOT NULL DEFAULT '{}',
	created_at BIGINT NOT NULL
);
CREATE INDEX transfers_day ON transfers (gaming_day, kind);
CREATE INDEX transfers_subject ON transfers (subject, kind);

CREATE TABLE entries (
	account_id TEXT NOT NULL REFERENCES accounts (id),
	seq BIGINT NOT NULL,
	transfer_id TEXT NOT NULL REFERENCES transfers (id),
	amount BIGINT NOT NULL CHECK (amount <> 0),
	balance_after BIGINT NOT NULL,
	created_at BIGINT NOT NULL,
	PRIMARY KEY (account_id, seq)
);
CREATE INDEX entries_transfer ON entries (transfer_id);

CREATE TABLE idempotency_keys (
	key TEXT PRIMARY KEY,
	operation TEXT NOT NULL,
	request_hash TEXT NOT NULL,
	response BYTEA,
	created_at BIGINT NOT NULL
);

-- table_epochs is the highest fencing epoch seen per table (sqlstore.ObserveEpoch).
CREATE TABLE table_epochs (
	id TEXT PRIMARY KEY,
	epoch BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE holds (
	id TEXT PRIMARY KEY,
	player TEXT NOT NULL,
	table_id TEXT NOT NULL,
	seat BIGINT NOT NULL,
	currency TEXT NOT NULL,
	amount BIGINT NOT NULL CHECK (amount > 0),
	structure TEXT NOT NULL,
	top_up BOOLEAN NOT NULL,
	state TEXT NOT NULL CHECK (state IN ('held', 'committed', 'released', 'expired')),
	hold_transfer TEXT NOT NULL REFERENCES transfers (id),
	-- Deferred, so a settlement can claim the hold before posting its transfer.
	settle_transfer TEXT REFERENCES transfers (id) DEFERRABLE INITIALLY DEFERRED,
	expires_at BIGINT NOT NULL,
	created_at BIGINT NOT NULL,
	settled_at BIGINT
);
CREATE INDEX holds_expiry ON holds (state, expires_at);

-- sittings are the players seated at a table with chips from the wallet.
CREATE TABLE sittings (
	player TEXT NOT NULL,
	table_id TEXT NOT NULL,
	seat BIGINT NOT NULL,
	currency TEXT NOT NULL,
	structure TEXT NOT NULL,
	since BIGINT NOT NULL,
	PRIMARY KEY (player, table_id)
);

-- departures keep the stack and time a player left a table with (CS-09, CS-10).
CREATE TABLE departures (
	id TEXT PRIMARY KEY,
	player TEXT NOT NULL,
	table_id TEXT NOT NULL,
	structure TEXT NOT NULL,
	currency TEXT NOT NULL,
	stack BIGINT NOT NULL CHECK (stack >= 0),
	gaming_day TEXT NOT NULL,
	left_at BIGINT NOT NULL
);
CREATE INDEX departures_player ON departures (player, gaming_day);

CREATE TABLE vouchers (
	id TEXT PRIMARY KEY,
	player TEXT NOT NULL,
	event_id TEXT NOT NULL,
	currency TEXT NOT NULL,
	amount BIGINT NOT NULL CHECK (amount > 0),
	state TEXT NOT NULL CHECK (state IN ('issued', 'used')),
	issue_transfer TEXT NOT NULL REFERENCES transfers (id),
	-- Deferred, so an entry can claim the voucher before posting its transfer.
	use_transfer TEXT REFERENCES transfers (id) DEFERRABLE INITIALLY DEFERRED,
	created_at BIGINT NOT NULL
);
CREATE INDEX vouchers_player ON vouchers (player, event_id);

-- Entries and transfers are immutable: corrections are reversals.
-- +goose StatementBegin
CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'ledger rows are immutable: post a reversal instead'); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'ledger rows are immutable: post a reversal instead'); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER transfers_no_update BEFORE UPDATE ON transfers
BEGIN SELECT RAISE(ABORT, 'ledger rows are immutable: post a reversal instead'); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER transfers_no_delete BEFORE DELETE ON transfers
BEGIN SELECT RAISE(ABORT, 'ledger rows are immutable: post a reversal instead'); END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE vouchers;
DROP TABLE departures;
DROP TABLE sittings;
DROP TABLE holds;
DROP TABLE table_epochs;
DROP TABLE idempotency_keys;
DROP TABLE entries;
DROP TABLE transfers;
DROP TABLE accounts;
