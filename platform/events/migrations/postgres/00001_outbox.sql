-- +goose Up
-- outbox holds events written in the same transaction as the state change
-- that caused them; the relay publishes rows with no published_at.
CREATE TABLE outbox (
	seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id TEXT NOT NULL UNIQUE,
	topic TEXT NOT NULL,
	event_key TEXT NOT NULL,
	payload BYTEA NOT NULL,
	epoch BIGINT NOT NULL,
	headers TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	published_at BIGINT
);
CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

-- processed_events remembers which event IDs each consumer has applied.
CREATE TABLE processed_events (
	consumer TEXT NOT NULL,
	event_id TEXT NOT NULL,
	processed_at BIGINT NOT NULL,
	PRIMARY KEY (consumer, event_id)
);

-- +goose Down
DROP TABLE processed_events;
DROP TABLE outbox;
