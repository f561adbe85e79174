// Package store keeps the wallet's ledger in SQL (SQLite embedded,
// PostgreSQL distributed) through platform/sqlstore: accounts with balances
// that constraints and conditional updates keep from going negative,
// immutable transfers and entries, idempotency keys, holds with expiry, the
// highest fencing epoch seen per table, sittings and departures (CS-08,
// CS-09, CS-10) and entry vouchers.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the wallet's schema, one complete set per dialect,
// for sqlstore.Options.Migrations.
func Migrations() fs.FS { return sqlstore.Embedded(migrations, "migrations") }

// ServiceName is the sqlstore service name: the SQLite file and PostgreSQL schema.
const ServiceName = "wallet"

// Store is the wallet's SQL storage.
type Store struct {
	db *sqlstore.DB
	// opened caches the IDs of accounts known to exist (accounts are never
	// deleted), so EnsureAccount skips its INSERT on the hot path.
	opened sync.Map
	// group batches idempotent requests into shared transactions (nil:
	// each runs in its own; see NewGrouped).
	group *group
}

// New returns a store over an opened and migrated database that runs each
// request in a transaction of its own.
func New(db *sqlstore.DB) *Store { return &Store{db: db} }

// DB returns the underlying database.
func (s *Store) DB() *sqlstore.DB { return s.db }

// Failures of the store.
var (
	// ErrKeyReused refuses an idempotency key sent again with a different request.
	ErrKeyReused = fault.New(fault.Conflict, "IDEMPOTENCY_KEY_REUSED", "idempotency key was used for a different request")
	// ErrAccountNotFound is an unknown account.
	ErrAccountNotFound = fault.New(fault.NotFound, "ACCOUNT_NOT_FOUND", "account not found")
	// ErrAccountExists refuses opening an account twice.
	ErrAccountExists = fault.New(fault.Conflict, "ACCOUNT_EXISTS", "account already exists")
	// ErrHoldPending refuses a second buy-in hold for a player at a table
	// while one is still held there and not expired: chips for one seat are
	// held once. The bank names the pending hold and its expiry in the
	// metadata (hold_id, expires_at).
	ErrHoldPending = fault.New(fault.Precondition, "HOLD_PENDING", "the player already has a buy-in hold pending at this table; commit or release it first")
	// ErrCashOutPending refuses a sit-down while the player's last sitting
	// at the table is still open: the table has let them go, but their
	// cash-out has not reached the wallet, so the stack they left with is
	// not recorded yet and a buy-in cannot be held to it (CS-09).
	ErrCashOutPending = fault.Rule(fault.Precondition, "CS-09", "CASH_OUT_PENDING",
		"the player's cash-out from this table has not been paid yet; sit down again once it is, with at least the stack left with")
)

// Request identifies one mutating request for idempotency: the caller's
// key, the operation and a canonical encoding of the request's content.
type Request struct {
	Key       string
	Operation string
	Body      []byte
	// Lane groups requests that touch the same rows (a table's, the
	// cage's, an event's): on a grouped store they are batched together
	// (GroupCommit). Any string; empty is a lane too.
	Lane string
	// Lasting records the key for good as well (payment_keys), in the
	// transaction that does the request: a payment to or from an event's
	// prize pool. Its key is the tournament's natural one (event, player,
	// kind, number), and a retry that comes after the idempotency key was
	// pruned must get the original answer, not pay a second time.
	Lasting bool
	// Exclusive, when set, lets a grouped store on PostgreSQL pipeline the
	// request with the others of its batch (GroupCommit): it names what the
	// request reads that another request may write — the player account
	// whose balance it reads, say — and the first name orders the
	// request's locks among the batch's. Requests that share a name (or an
	// idempotency key) are not pipelined together. A pipelined request
	// runs fn as always, but may send statements only with Tx.Query-based
	// methods (FencedPresence, Post); any other fails the pipeline, and
	// the batch then runs the ordinary way.
	Exclusive []string
}

// exclusive is what the request names for the group commit's pipeline
// (Exclusive) with its idempotency key, or nil when it is not to be
// pipelined: a lasting request reads its payment key with a statement a
// pipeline cannot send.
func (r Request) exclusive() []string {
	if len(r.Exclusive) == 0 || r.Lasting {
		return nil
	}
	return append(slices.Clip(r.Exclusive), "key:"+r.Key)
}

func (r Request) hash() string {
	h := sha256.New()
	h.Write([]byte(r.Operation))
	h.Write([]byte{0})
	h.Write(r.Body)
	return hex.EncodeToString(h.Sum(nil))
}

// Idempotent runs fn once per idempotency key, in one transaction that
// also records the key with fn's response (on a grouped store, in a
// savepoint of a batch's transaction: see GroupCommit). A later call with the same key
// and the same request returns the stored response (replayed is true); the
// same key with another request is ErrKeyReused. When fn fails, nothing is
// kept, not even the key.
//
// The key is written last, with the response, to save a round trip on
// every request: concurrent duplicates may all run fn, but only the first
// to insert the key commits. The others block on the key's unique index
// until it commits, find the key taken, roll back everything they did, and
// return the stored response. A duplicate whose fn failed (say, for lack of
// funds the original already spent) also looks the key up before
// reporting its error, so every duplicate gets the original response.
func (s *Store) Idempotent(ctx context.Context, req Request, now time.Time, fn func(tx *Tx) ([]byte, error)) (resp []byte, replayed bool, err error) {
	if req.Key == "" || len(req.Key) > 300 {
		return nil, false, fault.Invalidf("idempotency_key", "must be 1-300 characters")
	}
	hash := req.hash()
	replayed = false
	err = s.write(ctx, req.Lane, req.exclusive(), now, func(tx *Tx) error {
		tx.key = &txKey{req: req, hash: hash}
		if req.Lasting {
			storedHash, stored, found, err := tx.paymentKey(ctx, req.Key)
			if err != nil {
				return err
			}
			if found {
				// The request went through before its idempotency key was
				// pruned: answer it again, and pay nothing.
				if storedHash != hash {
					return ErrKeyReused.Withf("idempotency key %q was used for a different request", req.Key).With("idempotency_key", req.Key)
				}
				resp, replayed = stored, true
				return tx.recordKey(ctx, req, hash, stored)
			}
		}
		out, err := fn(tx)
		if err != nil {
			return err
		}
		if tx.key.recorded != nil {
			// fn posted its transfer with KeyRow: the key is already
			// written, with the response fn promised.
			out = tx.key.recorded
		} else if err := tx.recordKey(ctx, req, hash, out); err != nil {
			return err
		}
		if req.Lasting {
			if err := tx.recordPaymentKey(ctx, req, hash, out); err != nil {
				return err
			}
		}
		resp = out
		return nil
	})
	if err == nil {
		return resp, replayed, nil
	}
	stored, err := s.answerDuplicate(ctx, req.Key, hash, err)
	return stored, err == nil, err
}

// answerDuplicate turns a failed write of a keyed request into the answer
// the key already holds: a duplicate that lost the race for its key, or
// whose fn failed after the original succeeded, gets the original's stored
// response (replayed); anything else keeps its error.
func (s *Store) answerDuplicate(ctx context.Context, key, hash string, err error) ([]byte, error) {
	if _, isFault := fault.As(err); !isFault && !errors.Is(err, errKeyTaken) {
		return nil, err
	}
	storedHash, stored, found, lookupErr := s.lookupKey(ctx, key)
	switch {
	case lookupErr != nil:
		return nil, lookupErr
	case !found && errors.Is(err, errKeyTaken):
		return nil, fault.New(fault.Aborted, "IDEMPOTENCY_KEY_BUSY", "a concurrent request with this key did not finish; retry")
	case !found:
		return nil, err
	case storedHash != hash:
		return nil, ErrKeyReused.Withf("idempotency key %q was used for a different request", key).With("idempotency_key", key)
	default:
		return stored, nil
	}
}

// errKeyTaken rolls back a duplicate that lost the race for its key.
var errKeyTaken = errors.New("idempotency key taken by a concurrent request")

// recordKey writes the request's idempotency key with its response; a key
// a concurrent duplicate wrote first is errKeyTaken.
func (t *Tx) recordKey(ctx context.Context, req Request, hash string, resp []byte) error {
	return t.insertKey(ctx, "idempotency_keys", "idempotency key", req, hash, resp)
}

// recordPaymentKey writes a lasting request's key for good (payment_keys),
// beside its idempotency key. Its primary key refuses a second payment
// under the key: a concurrent duplicate that wrote it first (both came
// after the idempotency key was pruned) is errKeyTaken, and the loser
// answers with the winner's response.
func (t *Tx) recordPaymentKey(ctx context.Context, req Request, hash string, resp []byte) error {
	return t.insertKey(ctx, "payment_keys", "payment key", req, hash, resp)
}

// insertKey writes req's key with its response into table, what it holds.
func (t *Tx) insertKey(ctx context.Context, table, what string, req Request, hash string, resp []byte) error {
	n, err := sqlstore.Exec(ctx, t.tx, `INSERT INTO `+table+` (key, operation, request_hash, response, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key) DO NOTHING`, []any{req.Key, req.Operation, hash, resp, t.now.UnixMilli()}, "record %s", what)
	if err == nil && n == 0 {
		return errKeyTaken
	}
	return err
}

// paymentKey reads a lasting request's key from payment_keys.
func (t *Tx) paymentKey(ctx context.Context, key string) (hash string, response []byte, found bool, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT request_hash, response FROM payment_keys WHERE key = $1`, key).Scan(&hash, &response)
	if ok, err := sqlstore.Found(err, "read payment key"); !ok {
		return "", nil, false, err
	}
	return hash, response, true, nil
}

func (s *Store) lookupKey(ctx context.Context, key string) (hash string, response []byte, found bool, err error) {
	err = s.db.SQL().QueryRowContext(ctx, `SELECT request_hash, response FROM idempotency_keys WHERE key = $1`, key).Scan(&hash, &response)
	if ok, err := sqlstore.Found(err, "read idempotency key"); !ok {
		return "", nil, false, err
	}
	return hash, response, true, nil
}

// PruneIdempotencyKeys deletes up to batch idempotency keys recorded
// before cutoff and reports how many it deleted; the caller repeats while
// a full batch went. Batches keep each delete short, so a backlog (the
// first prune after an upgrade, or after the wallet was down) does not
// hold locks or grow the WAL in one long statement. Only the keys go: the
// transfers and entries their requests posted are never deleted. Replicas
// may prune at once: a key another replica deleted first is simply not
// counted.
func (s *Store) PruneIdempotencyKeys(ctx context.Context, cutoff time.Time, batch int) (int, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("prune idempotency keys: batch %d must be positive", batch)
	}
	n, err := sqlstore.Exec(ctx, s.db.SQL(), `DELETE FROM idempotency_keys WHERE key IN
		(SELECT key FROM idempotency_keys WHERE created_at < $1 ORDER BY created_at LIMIT $2)`, []any{cutoff.UnixMilli(), batch},
		"prune idempotency keys before %s", cutoff.Format(time.RFC3339))
	return int(n), err
}

// Update runs fn in one read-write transaction without an idempotency key
// (for work that is idempotent by itself, like expiring a hold).
func (s *Store) Update(ctx context.Context, now time.Time, fn func(tx *Tx) error) error {
	return s.update(ctx, now, fn)
}

// Read runs fn in one read-only transaction.
func (s *Store) Read(ctx context.Context, now time.Time, fn func(tx *Tx) error) error {
	return s.db.ReadTx(ctx, func(tx *sqlstore.Tx) error { return fn(&Tx{tx: tx, now: now, store: s}) })
}

// update runs at READ COMMITTED on PostgreSQL: every invariant is enforced
// by a conditional write that locks its row (balance, hold state, epoch,
// sitting), so serializable isolation would only add retries. A
// concurrent duplicate of an idempotency key waits on the key's row lock
// and then sees the committed response.
func (s *Store) update(ctx context.Context, now time.Time, fn func(tx *Tx) error) error {
	return s.db.TxWith(ctx, sqlstore.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *sqlstore.Tx) error {
		return fn(&Tx{tx: tx, now: now, store: s})
	})
}

// Tx is one wallet transaction.
type Tx struct {
	tx    *sqlstore.Tx
	now   time.Time
	store *Store
	// key is the idempotency key of the request the transaction runs for
	// (nil outside Idempotent).
	key *txKey
}

// txKey is a transaction's idempotency key and, once a Post wrote it with
// KeyRow, the response recorded with it.
type txKey struct {
	req      Request
	hash     string
	handed   bool // KeyRow gave the row out
	recorded []byte
}

// KeyRow returns the row that records the transaction's idempotency key
// with resp as the stored response, to pass in Post's with: on PostgreSQL
// the key is then written in the transfer's own statement, saving the
// round trip of Idempotent's separate INSERT on the buy-in hot path. Once
// that Post succeeds, Idempotent writes nothing more and answers resp (fn's
// own result is not stored), so resp must be exactly what fn returns —
// which means every field of it is known before the posting. A concurrent
// duplicate that committed the key first makes the Post fail the way
// Idempotent's own INSERT would (the key taken), and Idempotent answers
// with the stored response.
//
// ok is false outside Idempotent, once a key row was handed out, and on
// SQLite, where statements are function calls and Idempotent's own INSERT
// costs no round trip.
func (t *Tx) KeyRow(resp []byte) (row Row, ok bool) {
	if t.key == nil || t.key.handed || t.tx.Dialect() != sqlstore.Postgres {
		return Row{}, false
	}
	k := t.key
	k.handed = true
	return Row{
		Table:   "idempotency_keys",
		Columns: []string{"key", "operation", "request_hash", "response", "created_at"},
		Values:  []any{k.req.Key, k.req.Operation, k.hash, resp, t.now.UnixMilli()},
		written: func() { k.recorded = resp },
	}, true
}

// RecordedResponse is the response a successful Post recorded with the
// idempotency key (KeyRow), if any.
func (t *Tx) RecordedResponse() ([]byte, bool) {
	if t.key == nil || t.key.recorded == nil {
		return nil, false
	}
	return t.key.recorded, true
}

// Pipelined reports whether the transaction is a pipelined one
// (Request.Exclusive), where only FencedPresence and Post send statements.
func (t *Tx) Pipelined() bool { return t.tx.Pipelined() }

// Now is the transaction's timestamp.
func (t *Tx) Now() time.Time { return t.now }

// AfterCommit runs f once the transaction has committed (never after a
// rolled-back attempt): for effects outside the database, such as metrics.
func (t *Tx) AfterCommit(f func()) { t.tx.AfterCommit(f) }

func noRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
