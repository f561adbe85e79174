package bank

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/store"
)

// Table flow failures.
var (
	// ErrHoldNotHeld refuses committing or releasing a hold that was
	// already committed, released or expired.
	ErrHoldNotHeld = fault.New(fault.Precondition, "HOLD_NOT_HELD", "the hold is no longer held")
	// ErrHoldExpired refuses committing a hold past its expiry.
	ErrHoldExpired = fault.New(fault.Precondition, "HOLD_EXPIRED", "the hold has expired")
	// ErrHoldPending refuses a second buy-in hold for a player at a table
	// while the first is still held and not expired; its metadata names the
	// pending hold (hold_id) and when it expires (expires_at, RFC 3339).
	ErrHoldPending = store.ErrHoldPending
	// ErrNotSeated refuses a cash-out for a player the wallet has not seated
	// at the table: chips leave a table only with a leaving player (CS-08).
	ErrNotSeated = fault.Rule(fault.Precondition, "CS-08", "NOT_SEATED", "the player is not seated at this table")
	// ErrCashOutPending refuses a sit-down while the player's last sitting
	// at the table is open: its cash-out has not arrived, so the stack
	// they left with is not known yet (CS-09).
	ErrCashOutPending = store.ErrCashOutPending
	// errTopUpNotSeated refuses a top-up naming a sitting that is not the
	// player's open sitting at the table.
	errTopUpNotSeated = fault.New(fault.Precondition, "NOT_SEATED", "a top-up needs the player's open sitting at this table")
)

// TableRequest identifies the table a write is made for, with the
// table's fencing epoch.
type TableRequest struct {
	Table string
	// Epoch fences the request (ObserveTableEpoch) but is no part of what
	// it asks, so it stays out of the idempotency key's request hash: the
	// table's next owner retries its predecessor's step (a commit whose
	// answer was lost when that replica died) under a new epoch, and must
	// get the original answer. Hashed in, the retry was IDEMPOTENCY_KEY_REUSED,
	// which the table took for a refusal: it unseated the player and tried
	// to release a hold already committed, stranding the buy-in in escrow.
	Epoch int64 `json:"-"`
}

// lane is the table's: its hold and escrow accounts and its epoch.
func (r TableRequest) lane() string { return "table:" + r.Table }

func (r TableRequest) validate() error {
	if err := ledger.ValidOwner("table_id", r.Table); err != nil {
		return err
	}
	if r.Epoch <= 0 {
		return fault.Invalidf("epoch", "must be positive, got %d", r.Epoch)
	}
	return nil
}

// BuyInQuery asks what a player may put on a table now.
type BuyInQuery struct {
	Player   string
	Currency string
	Game     buyin.Game
	// Stack is the player's current stack at the table when seated.
	Stack int64
}

// CheckBuyIn returns what the player may buy in for at the table now (the
// range and the rule that sets it), without moving chips.
func (b *Bank) CheckBuyIn(ctx context.Context, q BuyInQuery) (buyin.Decision, error) {
	if err := cmp.Or(validPlayer(q.Player), ledger.ValidOwner("table_id", q.Game.Table)); err != nil {
		return buyin.Decision{}, err
	}
	cur, err := ledger.ParseCurrency(q.Currency)
	if err != nil {
		return buyin.Decision{}, err
	}
	var d buyin.Decision
	err = b.store.Read(ctx, b.clock.Now().UTC(), func(tx *store.Tx) error {
		var err error
		d, err = b.decide(ctx, tx, q.Player, cur, q.Game, q.Stack)
		return err
	})
	return d, err
}

func (b *Bank) decide(ctx context.Context, tx *store.Tx, player string, cur ledger.Currency, g buyin.Game, stack int64) (buyin.Decision, error) {
	p, err := tx.Presence(ctx, player, g.Table, cur, b.profile.Day.Of(tx.Now()))
	if err != nil {
		return buyin.Decision{}, err
	}
	return b.decideWith(p, cur, g, stack, tx.Now())
}

func (b *Bank) decideWith(p store.Presence, cur ledger.Currency, g buyin.Game, stack int64, now time.Time) (buyin.Decision, error) {
	if p.Seated && p.Sitting.Currency != cur {
		return buyin.Decision{}, ledger.ErrCurrencyMismatch.Withf("the player sits at %s in %s", g.Table, p.Sitting.Currency)
	}
	s := buyin.Situation{Seated: p.Seated, Stack: stack, Now: now}
	if !p.Seated {
		s.Departures = p.Departures
	}
	return b.profile.Decide(g, s)
}

// HoldRequest asks to take chips from a player's account for a buy-in or
// top-up at a table (step 4 of "Seat a player" in ARCHITECTURE.md).
type HoldRequest struct {
	Key string `json:"-"`
	TableRequest
	Player   string
	Seat     int64
	Currency string
	Game     buyin.Game
	// Stack is the player's current stack when already seated (a top-up).
	// It is what the table saw when it asked, not part of what is asked,
	// so it stays out of the idempotency key's request hash: a top-up
	// whose answer was lost is retried after a hand has moved the stack,
	// and must get the original hold, not IDEMPOTENCY_KEY_REUSED. The
	// original answer stands as it was decided (G-19 against the stack
	// then), like every replayed answer.
	Stack  int64 `json:"-"`
	Amount int64
	// Sitting is the sitting a top-up adds to; empty for a sit-down.
	Sitting string
}

// HoldResult is a hold and the decision that allowed it.
type HoldResult struct {
	HoldID     string
	State      store.HoldState
	Player     string
	Table      string
	Currency   ledger.Currency
	Amount     int64
	ExpiresAt  time.Time
	TransferID string
	Case       buyin.Case
	Rule       string
	Min, Max   int64
	Balance    int64
}

// HoldBuyIn applies the buy-in policy and, if the amount is allowed, moves
// it from the player's account to the table's hold account, to be
// committed or released; a hold not settled before its expiry is released
// by the sweeper. The whole amount is held or nothing (CS-01).
//
// A player has at most one hold pending at a table: while one is held and
// not expired, another (under another key) is ErrHoldPending, naming it.
// One past its expiry that the sweeper has not reached yet is released
// here, in the same transaction, so it never blocks. The request's own key
// replayed still returns the original hold.
func (b *Bank) HoldBuyIn(ctx context.Context, r HoldRequest) (HoldResult, error) {
	res, err := fenced(ctx, b, r.TableRequest, func() (HoldResult, error) { return b.holdBuyIn(ctx, r) })
	if f, ok := fault.As(err); ok && errors.Is(f, ErrHoldPending) && f.Meta["hold_id"] == "" {
		// Lost a race to a concurrent hold (holds_one_pending refused the
		// insert, which on PostgreSQL aborts the transaction): name the
		// winner now that it has committed.
		if h, found, lerr := b.store.PendingHold(ctx, r.Player, r.Table); lerr == nil && found {
			err = holdPending(r.Player, r.Table, h)
		}
	}
	return res, err
}

// exclusive names what a hold reads that another request may write, so
// that the store pipelines it only with requests that do not
// (store.Request.Exclusive): the player's account, whose balance it reads
// under lock and predicts, and the player's holds at the table (in any
// currency), of which it allows one pending. The table's epoch and hold
// account, which every hold at the table writes, are not read for
// anything another hold's write changes: the epoch is checked by the
// statement that records it, and the hold account's balance is not read.
// Sittings and departures are written by commits and cash-outs, which are
// not pipelined.
func (r HoldRequest) exclusive() []string {
	cur, err := ledger.ParseCurrency(r.Currency)
	if err != nil {
		return nil
	}
	return []string{string(ledger.PlayerAccount(r.Player, cur)), "holds:" + r.Player + "@" + r.Table}
}

// holdPending is ErrHoldPending naming the pending hold h.
func holdPending(player, table string, h store.PendingHold) error {
	return ErrHoldPending.Withf("%s already has hold %s pending at %s until %s; commit or release it first",
		player, h.ID, table, h.ExpiresAt.Format(time.RFC3339Nano)).
		With("hold_id", h.ID, "expires_at", h.ExpiresAt.Format(time.RFC3339Nano), "player_id", player, "table_id", table)
}

func (b *Bank) holdBuyIn(ctx context.Context, r HoldRequest) (HoldResult, error) {
	if r.Stack < 0 {
		return HoldResult{}, fault.Invalidf("stack", "must not be negative")
	}
	cur, err := b.validBuyIn(r.TableRequest, r.Player, r.Seat, r.Amount, r.Currency)
	if err != nil {
		return HoldResult{}, err
	}
	r.Game.Table = r.Table
	return idempotent(ctx, b, "HoldBuyIn", r.Key, r, func(tx *store.Tx) (HoldResult, error) {
		hold := ledger.HoldAccount(r.Table, cur)
		p, err := tx.FencedPresence(ctx, r.Table, r.Epoch, r.Player, cur, b.profile.Day.Of(tx.Now()), hold)
		if err != nil {
			return HoldResult{}, err
		}
		if err := sittingMatches(r, p); err != nil {
			return HoldResult{}, err
		}
		if err := b.clearPending(ctx, tx, r.Player, r.Table, p); err != nil {
			return HoldResult{}, err
		}
		// An unknown player account surfaces as NotFound from the posting.
		player := ledger.PlayerAccount(r.Player, cur)
		d, err := b.decideWith(p, cur, r.Game, r.Stack, tx.Now())
		if err != nil {
			return HoldResult{}, err
		}
		if err := d.Allow(r.Amount); err != nil {
			return HoldResult{}, fmt.Errorf("buy in %s at %s: %w", r.Player, r.Table, err)
		}
		h := store.Hold{
			ID: newID("hold_"), Player: r.Player, Table: r.Table, Seat: r.Seat, Currency: cur, Amount: r.Amount,
			Structure: r.Game.Structure, TopUp: d.Case == buyin.TopUp, Sitting: r.Sitting, ExpiresAt: tx.Now().Add(b.holdTTL), CreatedAt: tx.Now(),
		}
		h.HoldTransfer = newID("tr_")
		out := HoldResult{
			HoldID: h.ID, State: store.Held, Player: r.Player, Table: r.Table, Currency: cur, Amount: r.Amount,
			ExpiresAt: h.ExpiresAt, TransferID: h.HoldTransfer, Case: d.Case, Rule: d.Rule, Min: d.Range.Min, Max: d.Range.Max,
		}
		with := []store.Row{store.HoldRow(h)}
		// With the player's balance locked (and no expired hold released
		// into it above), the balance after the transfer is known now, so
		// the whole response is: record the idempotency key with it in the
		// transfer's statement instead of a round trip of its own. A
		// balance short of the amount is left to Post to refuse (CS-01).
		predicted := p.BalanceLocked && p.Pending == nil && p.Balance >= r.Amount
		if predicted {
			out.Balance = p.Balance - r.Amount
			if with, err = withKey(tx, "HoldBuyIn", out, with); err != nil {
				return HoldResult{}, err
			}
		}
		res, err := b.postWith(ctx, tx, h.HoldTransfer, with, ledger.BuyInHold, cur,
			store.Posting{Player: r.Player, Subject: r.Table, Actor: "table:" + r.Table},
			map[string]string{"player": r.Player, "table": r.Table, "seat": strconv.FormatInt(r.Seat, 10), "hold": h.ID, "rule": d.Rule},
			player, ledger.Move{From: player, To: hold, Amount: r.Amount})
		if err != nil {
			return HoldResult{}, paidInFull(err, player, r.Amount)
		}
		if predicted && res.Balance != out.Balance {
			return HoldResult{}, errBalanceChanged(player)
		}
		out.TransferID, out.Balance = res.TransferID, res.Balance
		return out, nil
	})
}

// validBuyIn checks what a hold and a sit-down both ask, before anything
// is read, and returns the currency.
func (b *Bank) validBuyIn(r TableRequest, player string, seat, amount int64, currency string) (ledger.Currency, error) {
	if err := cmp.Or(r.validate(), validPlayer(player)); err != nil {
		return "", err
	}
	if seat < 0 {
		return "", fault.Invalidf("seat", "must not be negative")
	}
	if err := cmp.Or(validAmount("amount", amount), b.withinMaximum("amount", amount)); err != nil {
		return "", err
	}
	return ledger.ParseCurrency(currency)
}

// clearPending clears the way for a buy-in of player at table past the
// hold still held for them there (p.Pending), if any: one not expired is
// ErrHoldPending, naming it; one past its expiry that the sweeper has not
// reached yet is released in tx, as the sweeper would have.
func (b *Bank) clearPending(ctx context.Context, tx *store.Tx, player, table string, p store.Presence) error {
	if p.Pending == nil {
		return nil
	}
	if tx.Now().Before(p.Pending.ExpiresAt) {
		return holdPending(player, table, *p.Pending)
	}
	if tx.Pipelined() {
		// Releasing it takes statements a pipeline cannot send: the batch
		// runs the ordinary way.
		return sqlstore.ErrNotPipelined
	}
	return b.expireNow(ctx, tx, p.Pending.Hold(player, table))
}

// withKey appends to with the row of tx's idempotency key with the
// response out (store.Tx.KeyRow), when the store writes it that way, so
// that the key goes in the transfer's own statement.
func withKey(tx *store.Tx, op string, out any, with []store.Row) ([]store.Row, error) {
	resp, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("%s: encode response: %w", op, err)
	}
	if row, ok := tx.KeyRow(resp); ok {
		with = append(with, row)
	}
	return with, nil
}

// paidInFull is a buy-in's posting error, as CS-01 says when the player's
// account is short: the buy-in is paid in full or not at all.
func paidInFull(err error, player ledger.AccountID, amount int64) error {
	if !errors.Is(err, ledger.ErrInsufficientFunds) {
		return err
	}
	f, _ := fault.As(err)
	return fault.Rule(fault.Precondition, "CS-01", "INSUFFICIENT_FUNDS", "the buy-in must be paid in full from the wallet").
		With("account_id", string(player), "amount", strconv.FormatInt(amount, 10)).Wrap(f)
}

// errBalanceChanged refuses a buy-in whose posting left another balance
// than the one its response promised. It cannot happen while the row lock
// of FencedPresence holds; refusing beats storing a response that
// disagrees with the books.
func errBalanceChanged(player ledger.AccountID) error {
	return fault.New(fault.Aborted, "BALANCE_CHANGED", "balance changed concurrently; retry").With("account_id", string(player))
}

// sittingMatches checks a hold request against the player's open sitting
// at the table: a sit-down needs none (an open one means its cash-out has
// not arrived: CS-09 cannot be judged yet), a top-up needs the one it names.
func sittingMatches(r HoldRequest, p store.Presence) error {
	switch {
	case r.Sitting == "" && p.Seated:
		return ErrCashOutPending.Withf("%s left %s, and the cash-out of sitting %s has not arrived; sit down again once it has, with at least the stack left with",
			r.Player, r.Table, p.Sitting.ID).
			With("player_id", r.Player, "table_id", r.Table, "sitting_id", p.Sitting.ID, "seat", strconv.FormatInt(p.Sitting.Seat, 10))
	case r.Sitting != "" && (!p.Seated || p.Sitting.ID != r.Sitting):
		return errTopUpNotSeated.Withf("%s has no open sitting %s at %s", r.Player, r.Sitting, r.Table).
			With("player_id", r.Player, "table_id", r.Table, "sitting_id", r.Sitting)
	}
	return nil
}

// SettleRequest commits or releases a hold on the table's behalf.
type SettleRequest struct {
	Key string `json:"-"`
	TableRequest
	HoldID string
	// Player, when set, is the hold's player as the table knows it: a hold
	// of another player is not found. It lets a commit be pipelined with
	// the other requests of its batch (committing.exclusive). It follows
	// from the hold, so it is no part of what is asked and stays out of the
	// idempotency key's request hash: a commit retried with the player
	// named gets the answer of the one sent without.
	Player string `json:"-"`
}

// committing is a commit's SettleRequest, which the store may pipeline
// when it names the player. Its JSON is SettleRequest's, so the request
// hash of a commit is the same either way.
type committing SettleRequest

// exclusive names what a commit writes that another request of its batch
// may read, so that the store pipelines it only with requests that do not
// (store.Request.Exclusive): the player's holds at the table, one of which
// it settles and which a hold of the same player at the table reads (by
// the same name: HoldRequest.exclusive), and the player's sitting there,
// which it opens and which that hold reads as well; and the hold itself,
// which a second settlement of it would claim. What else it writes, the
// table's hold and escrow accounts and its epoch, no request reads for
// anything another one's write changes (see HoldRequest.exclusive). A
// commit that does not name its player is not pipelined: its names would
// not be known before it runs.
func (r committing) exclusive() []string {
	if r.Player == "" {
		return nil
	}
	return []string{"holds:" + r.Player + "@" + r.Table, "hold:" + r.HoldID}
}

// CommitHold moves a held buy-in to the table's escrow and seats the
// player in the wallet's books (step 5 of "Seat a player").
func (b *Bank) CommitHold(ctx context.Context, r SettleRequest) (HoldResult, error) {
	return b.settle(ctx, "CommitHold", r, store.Committed)
}

// ReleaseHold returns a held buy-in to the player's account.
func (b *Bank) ReleaseHold(ctx context.Context, r SettleRequest) (HoldResult, error) {
	return b.settle(ctx, "ReleaseHold", r, store.Released)
}

func (b *Bank) settle(ctx context.Context, op string, r SettleRequest, to store.HoldState) (HoldResult, error) {
	if err := r.validate(); err != nil {
		return HoldResult{}, err
	}
	if r.HoldID == "" {
		return HoldResult{}, fault.Invalidf("hold_id", "is required")
	}
	return fenced(ctx, b, r.TableRequest, func() (HoldResult, error) { return b.settleFenced(ctx, op, r, to) })
}

func (b *Bank) settleFenced(ctx context.Context, op string, r SettleRequest, to store.HoldState) (HoldResult, error) {
	settle := func(tx *store.Tx) (HoldResult, error) {
		if tx.Pipelined() {
			// Only a commit is pipelined (committing).
			return b.commitPipelined(ctx, tx, r)
		}
		h, err := tx.Hold(ctx, r.HoldID)
		if err != nil {
			return HoldResult{}, err
		}
		if h.Table != r.Table {
			return HoldResult{}, fault.NotFoundf("hold", "hold %s is not at table %s", r.HoldID, r.Table).With("hold_id", r.HoldID)
		}
		if r.Player != "" && h.Player != r.Player {
			return HoldResult{}, fault.NotFoundf("hold", "hold %s at table %s is not %s's", r.HoldID, r.Table, r.Player).
				With("hold_id", r.HoldID, "player_id", r.Player)
		}
		if err := tx.ObserveTableEpoch(ctx, r.Table, r.Epoch); err != nil {
			return HoldResult{}, err
		}
		if h.State != store.Held {
			return HoldResult{}, ErrHoldNotHeld.Withf("hold %s is %s", h.ID, h.State).With("hold_id", h.ID, "state", string(h.State))
		}
		if to == store.Committed && !tx.Now().Before(h.ExpiresAt) {
			return HoldResult{}, ErrHoldExpired.Withf("hold %s expired at %s", h.ID, h.ExpiresAt.Format(time.RFC3339)).With("hold_id", h.ID)
		}
		return b.settleHold(ctx, tx, h, to, "")
	}
	if to == store.Committed {
		return idempotent(ctx, b, op, r.Key, committing(r), settle)
	}
	return idempotent(ctx, b, op, r.Key, r, settle)
}

// commitPipelined commits a hold in a pipelined batch: two statements
// where the ordinary way (settleFenced) sends six. The first checks the
// fence and claims the hold (store.Tx.ClaimForCommit); the second posts
// the transfer with the sitting a sit-down opens and the idempotency key
// with the response, which is known before the posting: a commit moves
// chips from the table's hold account to its escrow and tells nothing
// that the posting decides (the player's balance it reports is 0, as the
// ordinary way's, since the player's account is not touched). Anything
// out of the ordinary — a check that fails, the escrow account not known
// open (its hold made by another replica, or before a restart), a sitting
// still open — fails the pipeline, and the batch runs the ordinary way,
// which explains it.
func (b *Bank) commitPipelined(ctx context.Context, tx *store.Tx, r SettleRequest) (HoldResult, error) {
	transferID := newID("tr_")
	h, ok, err := tx.ClaimForCommit(ctx, r.Table, r.Epoch, r.HoldID, r.Player, transferID)
	if err != nil {
		return HoldResult{}, err
	}
	if !ok {
		return HoldResult{}, fmt.Errorf("commit hold %s at %s: not claimed: %w", r.HoldID, r.Table, sqlstore.ErrNotPipelined)
	}
	table := ledger.TableAccount(h.Table, h.Currency)
	if err := tx.EnsureAccount(ctx, table); err != nil {
		// Known open once this process has made a hold at the table
		// (FencedPresence opens it), and then sends nothing; else this
		// fails the pipeline, and the ordinary way opens it.
		return HoldResult{}, err
	}
	out := HoldResult{HoldID: h.ID, State: store.Committed, Player: h.Player, Table: h.Table, Currency: h.Currency, Amount: h.Amount,
		ExpiresAt: h.ExpiresAt, TransferID: transferID}
	var with []store.Row
	if h.Sitting == "" {
		with = append(with, store.SittingRow(store.Sitting{ID: h.ID, Player: h.Player, Table: h.Table, Seat: h.Seat, Currency: h.Currency,
			Structure: h.Structure, Since: tx.Now()}))
	}
	resp, err := json.Marshal(out)
	if err != nil {
		return HoldResult{}, fmt.Errorf("CommitHold: encode response: %w", err)
	}
	if row, ok := tx.KeyRow(resp); ok {
		with = append(with, row)
	}
	_, err = b.postWith(ctx, tx, transferID, with, ledger.BuyInCommit, h.Currency,
		store.Posting{Player: h.Player, Subject: h.Table, Actor: "table:" + h.Table}, settleMeta(h, ""), ledger.PlayerAccount(h.Player, h.Currency),
		ledger.Move{From: ledger.HoldAccount(h.Table, h.Currency), To: table, Amount: h.Amount})
	if err != nil {
		return HoldResult{}, err
	}
	countSettled(ctx, tx, h, store.Committed)
	return out, nil
}

// settleHold moves a held hold's chips to the table (commit) or back to
// the player (release, expiry) and marks it settled.
func (b *Bank) settleHold(ctx context.Context, tx *store.Tx, h store.Hold, to store.HoldState, reason string) (HoldResult, error) {
	hold, player := ledger.HoldAccount(h.Table, h.Currency), ledger.PlayerAccount(h.Player, h.Currency)
	move, kind := ledger.Move{From: hold, To: player, Amount: h.Amount}, ledger.BuyInRelease
	if to == store.Committed {
		table := ledger.TableAccount(h.Table, h.Currency)
		if err := tx.EnsureAccount(ctx, table); err != nil {
			return HoldResult{}, err
		}
		move, kind = ledger.Move{From: hold, To: table, Amount: h.Amount}, ledger.BuyInCommit
	}
	meta := settleMeta(h, reason)
	// Claim the hold first: a concurrent commit, release or expiry waits on
	// the hold's row and then finds it settled, so only one moves chips.
	transferID := newID("tr_")
	ok, err := tx.SettleHold(ctx, h.ID, to, transferID)
	if err != nil {
		return HoldResult{}, err
	}
	if !ok {
		return HoldResult{}, ErrHoldNotHeld.Withf("hold %s was settled concurrently", h.ID).With("hold_id", h.ID)
	}
	res, err := b.postID(ctx, tx, transferID, kind, h.Currency, store.Posting{Player: h.Player, Subject: h.Table, Actor: "table:" + h.Table}, meta, player, move)
	if err != nil {
		return HoldResult{}, err
	}
	if to == store.Committed && h.Sitting == "" {
		// A sit-down's commit opens the sitting, named by its hold; a top-up
		// adds to the sitting it names.
		err := tx.OpenSitting(ctx, store.Sitting{ID: h.ID, Player: h.Player, Table: h.Table, Seat: h.Seat, Currency: h.Currency,
			Structure: h.Structure, Since: tx.Now()})
		if err != nil {
			return HoldResult{}, err
		}
	}
	countSettled(ctx, tx, h, to)
	return HoldResult{HoldID: h.ID, State: to, Player: h.Player, Table: h.Table, Currency: h.Currency, Amount: h.Amount,
		ExpiresAt: h.ExpiresAt, TransferID: res.TransferID, Balance: res.Balance}, nil
}

// settleMeta is the metadata of the transfer that settles hold h, with
// the reason when there is one.
func settleMeta(h store.Hold, reason string) map[string]string {
	meta := map[string]string{"player": h.Player, "table": h.Table, "seat": strconv.FormatInt(h.Seat, 10), "hold": h.ID}
	if reason != "" {
		meta["reason"] = reason
	}
	return meta
}

// expireNow releases the expired hold h inside tx, as the sweeper would
// have: a hold past its expiry is no longer pending, whether or not a
// sweep has run. h comes from the buy-in's presence read; a hold settled
// since is left as it is (settleHold claims it only while held).
func (b *Bank) expireNow(ctx context.Context, tx *store.Tx, h store.Hold) error {
	_, err := b.settleHold(ctx, tx, h, store.Expired, "hold expired")
	if errors.Is(err, ErrHoldNotHeld) {
		return nil
	}
	return err
}

// ExpireHolds releases every hold past its expiry back to its player and
// returns how many it released. Each release is its own transaction and
// conditional on the hold still being held, so it races safely with a
// late commit and with other sweepers.
func (b *Bank) ExpireHolds(ctx context.Context) (int, error) {
	released := 0
	for {
		now := b.clock.Now().UTC()
		holds, err := b.store.ExpiredHolds(ctx, now, 100)
		if err != nil {
			return released, err
		}
		for _, h := range holds {
			err := b.store.Update(ctx, now, func(tx *store.Tx) error {
				_, err := b.settleHold(ctx, tx, h, store.Expired, "hold expired")
				return err
			})
			if errors.Is(err, ErrHoldNotHeld) {
				continue // committed or released meanwhile
			}
			if err != nil {
				return released, fmt.Errorf("expire hold %s: %w", h.ID, err)
			}
			released++
		}
		if len(holds) < 100 {
			return released, nil
		}
	}
}

// RunSweeper releases expired holds and prunes idempotency keys past the
// retention window every interval until ctx ends. It waits on the
// injected clock, so tests drive it with a fake clock. Pruning every sweep
// deletes a few keys at a time, instead of a day's worth in one burst.
func (b *Bank) RunSweeper(ctx context.Context, interval time.Duration, onError func(error)) {
	report := func(err error) {
		if err != nil && onError != nil && ctx.Err() == nil {
			onError(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.clock.After(interval):
		}
		_, err := b.ExpireHolds(ctx)
		report(err)
		_, err = b.PruneIdempotencyKeys(ctx)
		report(err)
	}
}

// PruneIdempotencyKeys deletes the idempotency keys recorded longer ago
// than the retention window, in batches, and returns how many it deleted.
// A request replayed after its key is gone runs again as a new request, so
// the window must outlast every caller's retries (see Config). The
// ledger's transfers and entries are never deleted.
func (b *Bank) PruneIdempotencyKeys(ctx context.Context) (int, error) {
	cutoff := b.clock.Now().UTC().Add(-b.retention)
	pruned := 0
	for {
		n, err := b.store.PruneIdempotencyKeys(ctx, cutoff, b.pruneBatch)
		pruned += n
		if err != nil {
			return pruned, err
		}
		if n < b.pruneBatch || ctx.Err() != nil {
			return pruned, ctx.Err()
		}
	}
}

// CashOutRequest pays a leaving player's whole stack from the table's
// escrow back to their account.
type CashOutRequest struct {
	Key string `json:"-"`
	TableRequest
	Player   string
	Currency string
	// Stack is the player's whole stack at departure; it may be zero.
	Stack int64
	// Sitting is the sitting the cash-out ends and Seat its seat: only
	// that sitting is closed, so a late cash-out of an earlier seat never
	// ends a later one.
	Sitting string
	Seat    int64
}

// CashOutResult is a cash-out and the departure recorded for CS-09/CS-10.
type CashOutResult struct {
	TransferID string // empty when the stack was zero
	Player     string
	Table      string
	Currency   ledger.Currency
	Stack      int64
	Balance    int64
	LeftAt     time.Time
	GamingDay  string
}

// CashOut ends the player's sitting at the table: chips come off a table
// only with the player (CS-08). It records the stack and time of the
// departure for CS-09 and CS-10.
func (b *Bank) CashOut(ctx context.Context, r CashOutRequest) (CashOutResult, error) {
	if err := cmp.Or(r.validate(), validPlayer(r.Player)); err != nil {
		return CashOutResult{}, err
	}
	if r.Stack < 0 {
		return CashOutResult{}, fault.Invalidf("stack", "must not be negative, got %d", r.Stack)
	}
	if r.Sitting == "" {
		return CashOutResult{}, fault.Invalidf("sitting_id", "is required")
	}
	cur, err := ledger.ParseCurrency(r.Currency)
	if err != nil {
		return CashOutResult{}, err
	}
	return fenced(ctx, b, r.TableRequest, func() (CashOutResult, error) { return b.cashOut(ctx, r, cur) })
}

func (b *Bank) cashOut(ctx context.Context, r CashOutRequest, cur ledger.Currency) (CashOutResult, error) {
	return idempotent(ctx, b, "CashOut", r.Key, r, func(tx *store.Tx) (CashOutResult, error) {
		if err := tx.ObserveTableEpoch(ctx, r.Table, r.Epoch); err != nil {
			return CashOutResult{}, err
		}
		sitting, seated, err := tx.CloseSitting(ctx, r.Table, r.Sitting, r.Player)
		if err != nil {
			return CashOutResult{}, err
		}
		if !seated || sitting.Seat != r.Seat {
			return CashOutResult{}, ErrNotSeated.Withf("%s has no open sitting %s at seat %d of %s", r.Player, r.Sitting, r.Seat, r.Table).
				With("player_id", r.Player, "table_id", r.Table, "sitting_id", r.Sitting, "seat", strconv.FormatInt(r.Seat, 10))
		}
		if sitting.Currency != cur {
			return CashOutResult{}, ledger.ErrCurrencyMismatch.Withf("%s plays at %s in %s", r.Player, r.Table, sitting.Currency)
		}
		player := ledger.PlayerAccount(r.Player, cur)
		out := CashOutResult{Player: r.Player, Table: r.Table, Currency: cur, Stack: r.Stack, LeftAt: tx.Now(), GamingDay: b.profile.Day.Of(tx.Now())}
		if r.Stack > 0 {
			res, err := b.post(ctx, tx, ledger.CashOut, cur, store.Posting{Player: r.Player, Subject: r.Table, Actor: "table:" + r.Table},
				map[string]string{"player": r.Player, "table": r.Table, "seat": strconv.FormatInt(sitting.Seat, 10)},
				player, ledger.Move{From: ledger.TableAccount(r.Table, cur), To: player, Amount: r.Stack})
			if err != nil {
				return CashOutResult{}, err
			}
			out.TransferID, out.Balance = res.TransferID, res.Balance
		} else {
			a, err := tx.Account(ctx, player)
			if err != nil {
				return CashOutResult{}, err
			}
			out.Balance = a.Balance
		}
		countCashOut(ctx, tx, cur, r.Stack)
		dep := buyin.Departure{Table: r.Table, Structure: sitting.Structure, Stack: r.Stack, At: tx.Now()}
		if err := tx.RecordDeparture(ctx, newID("dep_"), r.Player, cur, out.GamingDay, dep); err != nil {
			return CashOutResult{}, err
		}
		return out, nil
	})
}
