package ledger

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

var t0 = time.Date(2026, 11, 30, 20, 0, 0, 0, time.UTC)

func TestParseAccountID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		kind  Kind
		owner string
		cur   Currency
		ok    bool
	}{
		{"player:alice:EUR", Player, "alice", "EUR", true},
		{"cage:EUR", Cage, "", "EUR", true},
		{"house_fees:USD", HouseFees, "", "USD", true},
		{"table:T-1:EUR", Table, "T-1", "EUR", true},
		{"prize_pool:ev.7:EUR", PrizePool, "ev.7", "EUR", true},
		{"cage:x:EUR", "", "", "", false},
		{"player:EUR", "", "", "", false},
		{"player:alice:eur", "", "", "", false},
		{"bank:alice:EUR", "", "", "", false},
		{"player:al ice:EUR", "", "", "", false},
		{"", "", "", "", false},
	}
	for _, tc := range tests {
		k, o, c, err := ParseAccountID(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseAccountID(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && (k != tc.kind || o != tc.owner || c != tc.cur) {
			t.Errorf("ParseAccountID(%q) = %s %s %s", tc.in, k, o, c)
		}
		if !tc.ok && fault.KindOf(err) != fault.Invalid {
			t.Errorf("ParseAccountID(%q) kind = %v, want invalid", tc.in, fault.KindOf(err))
		}
	}
	if got := PlayerAccount("alice", "EUR"); got != "player:alice:EUR" {
		t.Errorf("PlayerAccount = %s", got)
	}
	if got := CageAccount("EUR"); got != "cage:EUR" {
		t.Errorf("CageAccount = %s", got)
	}
}

func TestAddMulOverflow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		a, b     int64
		sum      int64
		overflow bool
	}{
		{"small", 2, 3, 5, false},
		{"negative", -2, -3, -5, false},
		{"max", math.MaxInt64, 0, math.MaxInt64, false},
		{"over max", math.MaxInt64, 1, 0, true},
		{"under min", math.MinInt64, -1, 0, true},
		{"mixed signs never overflow", math.MaxInt64, math.MinInt64, -1, false},
	}
	for _, tc := range tests {
		got, err := Add(tc.a, tc.b)
		if tc.overflow != (err != nil) || (!tc.overflow && got != tc.sum) {
			t.Errorf("%s: Add(%d,%d) = %d, %v", tc.name, tc.a, tc.b, got, err)
		}
		if tc.overflow && !errors.Is(err, ErrOverflow) {
			t.Errorf("%s: err = %v, want ErrOverflow", tc.name, err)
		}
	}
	if _, err := Mul(math.MaxInt64/2+1, 2); !errors.Is(err, ErrOverflow) {
		t.Errorf("Mul overflow err = %v", err)
	}
	if got, err := Mul(250, 100); err != nil || got != 25000 {
		t.Errorf("Mul(250,100) = %d, %v", got, err)
	}
}

func TestApplyNegativeOnlyForCage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind    Kind
		balance int64
		delta   int64
		want    int64
		err     error
	}{
		{Cage, 0, -500, -500, nil},
		{Player, 100, -100, 0, nil},
		{Player, 100, -101, 0, ErrInsufficientFunds},
		{Table, 0, -1, 0, ErrInsufficientFunds},
		{Hold, 0, -1, 0, ErrInsufficientFunds},
		{PrizePool, 5, -6, 0, ErrInsufficientFunds},
		{HouseFees, 0, -1, 0, ErrInsufficientFunds},
		{Voucher, 0, -1, 0, ErrInsufficientFunds},
		{Player, math.MaxInt64, 1, 0, ErrOverflow},
	}
	for _, tc := range tests {
		a := Account{ID: "x", Kind: tc.kind, Balance: tc.balance}
		got, err := a.Apply(tc.delta)
		if !errors.Is(err, tc.err) && !(err == nil && tc.err == nil) {
			t.Errorf("%s %d%+d: err = %v, want %v", tc.kind, tc.balance, tc.delta, err, tc.err)
		}
		if err == nil && got != tc.want {
			t.Errorf("%s %d%+d = %d, want %d", tc.kind, tc.balance, tc.delta, got, tc.want)
		}
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	alice, pool, fees := PlayerAccount("alice", "EUR"), PrizePoolAccount("ev1", "EUR"), HouseFeesAccount("EUR")
	tr, err := Build("t1", EventEntry, "EUR", t0, map[string]string{"event": "ev1"},
		Move{From: alice, To: pool, Amount: 5000}, Move{From: alice, To: fees, Amount: 1100})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Amount() != 6100 || len(tr.Entries) != 4 {
		t.Fatalf("entry transfer = %+v", tr)
	}
	if err := tr.CheckBalanced(); err != nil {
		t.Fatal(err)
	}

	bad := []struct {
		name  string
		cur   Currency
		moves []Move
		kind  fault.Kind
	}{
		{"zero amount", "EUR", []Move{{alice, pool, 0}}, fault.Invalid},
		{"negative amount", "EUR", []Move{{alice, pool, -5}}, fault.Invalid},
		{"overflowing total", "EUR", []Move{{alice, pool, math.MaxInt64}, {alice, fees, 1}}, fault.Invalid},
		{"wrong currency", "USD", []Move{{alice, pool, 5}}, fault.Invalid},
		{"same account", "EUR", []Move{{alice, alice, 5}}, fault.Invalid},
		{"bad account", "EUR", []Move{{"nope", alice, 5}}, fault.Invalid},
		{"no moves", "EUR", nil, fault.Invalid},
	}
	for _, tc := range bad {
		_, err := Build("t", Deposit, tc.cur, t0, nil, tc.moves...)
		if err == nil || fault.KindOf(err) != tc.kind {
			t.Errorf("%s: err = %v (kind %v), want %v", tc.name, err, fault.KindOf(err), tc.kind)
		}
	}
}

func TestReverseUndoesTransfer(t *testing.T) {
	t.Parallel()
	tr, err := Build("t1", Deposit, "EUR", t0, nil, Move{From: CageAccount("EUR"), To: PlayerAccount("bob", "EUR"), Amount: 700})
	if err != nil {
		t.Fatal(err)
	}
	r := Reverse(tr, "t2", t0.Add(time.Minute), nil)
	if r.Reverses != "t1" || r.Kind != Reversal || r.Meta["reversed_kind"] != string(Deposit) {
		t.Fatalf("reversal = %+v", r)
	}
	sum := map[AccountID]int64{}
	for _, e := range append(tr.Entries, r.Entries...) {
		sum[e.Account] += e.Amount
	}
	for a, s := range sum {
		if s != 0 {
			t.Errorf("account %s nets %d after reversal", a, s)
		}
	}
	if err := r.CheckBalanced(); err != nil {
		t.Error(err)
	}
}

func TestAuditReportClean(t *testing.T) {
	t.Parallel()
	ok := AuditReport{Currencies: []CurrencyTotals{{Currency: "EUR", Debits: WideOf(10), Credits: WideOf(10)}}}
	if !ok.Clean() || len(ok.Problems()) != 0 {
		t.Errorf("clean report: %v", ok.Problems())
	}
	bad := AuditReport{Currencies: []CurrencyTotals{{Currency: "EUR", Debits: WideOf(10), Credits: WideOf(9), Balances: WideOf(1)}},
		Mismatches: []Mismatch{{Account: "player:a:EUR", Balance: 5, EntrySum: WideOf(4), Problem: "balance differs"}}}
	if bad.Clean() || len(bad.Problems()) != 3 {
		t.Errorf("bad report problems: %v", bad.Problems())
	}
}
