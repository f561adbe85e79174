-- +goose Up
-- A batch of hand ends is sent as one pipelined round: BEGIN, each
-- table's fenced UPDATE, what its hand end writes (history, events, next
-- deck), COMMIT. The UPDATE's row count comes back only after the COMMIT
-- has run, too late to keep a fenced-out table's writes out of the
-- transaction, so the statement itself must fail when the fence does not
-- hold: fence_held raises, the transaction is rolled back whole, and the
-- batch is written again the slow way, where each table gets its own
-- answer (store.Store.SaveStates). PostgreSQL only: SQLite never pipelines.
-- +goose StatementBegin
CREATE FUNCTION fence_held(written bigint, table_id text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF written <> 1 THEN
		RAISE EXCEPTION 'table % is fenced out', table_id USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION fence_held(bigint, text);
