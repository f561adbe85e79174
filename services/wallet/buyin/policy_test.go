package buyin

import (
	"strconv"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/fault"
)

var helsinki = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Helsinki")
	if err != nil {
		panic(err)
	}
	return loc
}()

// Blinds 2/5 € in cents: big blind 500, so NL/PL 20 000–50 000 (CS-03).
var (
	nlA = Game{Table: "A", Structure: NoLimit, BigBlind: 500}
	nlB = Game{Table: "B", Structure: NoLimit, BigBlind: 500}
	plC = Game{Table: "C", Structure: PotLimit, BigBlind: 500}
	flD = Game{Table: "D", Structure: FixedLimit, BigBet: 200} // 100/200: min 2 000 (CS-02)
)

// evening returns a fake clock at 20:00 Helsinki time on 30 Nov 2026.
func evening() *clock.Fake {
	return clock.NewFake(time.Date(2026, 11, 30, 20, 0, 0, 0, helsinki))
}

type want struct {
	ok     bool
	min    int64
	max    int64
	rule   string // rule of the decision (ok) or of the refusal
	reason string // refusal reason
	kind   fault.Kind
}

func check(t *testing.T, p Profile, g Game, s Situation, amount int64, w want) {
	t.Helper()
	d, err := p.Check(g, s, amount)
	if w.ok {
		if err != nil {
			t.Fatalf("Check(%d) = %v, want allowed", amount, err)
		}
		if d.Range.Min != w.min || d.Range.Max != w.max || d.Rule != w.rule {
			t.Fatalf("decision = %s [%d,%d] rule %s, want [%d,%d] rule %s", d.Case, d.Range.Min, d.Range.Max, d.Rule, w.min, w.max, w.rule)
		}
		return
	}
	f, ok := fault.As(err)
	if !ok {
		t.Fatalf("Check(%d) = %v, want a fault", amount, err)
	}
	wantKind := w.kind
	if wantKind == 0 {
		wantKind = fault.Precondition
	}
	if f.Kind != wantKind || f.Reason != w.reason || f.Rule != w.rule {
		t.Fatalf("refusal = %v/%s/%s, want %v/%s/%s", f.Kind, f.Reason, f.Rule, wantKind, w.reason, w.rule)
	}
	if wantKind == fault.Precondition {
		maxText := ""
		if w.max != NoMaximum {
			maxText = itoa(w.max)
		}
		if f.Meta["min"] != itoa(w.min) || f.Meta["max"] != maxText {
			t.Fatalf("refusal range = [%s,%s], want [%d,%s]", f.Meta["min"], f.Meta["max"], w.min, maxText)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestBuyIn_NewPlayer(t *testing.T) {
	t.Parallel()
	p := DefaultProfile()
	now := evening().Now()
	tests := []struct {
		name   string
		game   Game
		amount int64
		want   want
	}{
		{"CS-03 NL minimum is 40 big blinds", nlA, 20000, want{ok: true, min: 20000, max: 50000, rule: "CS-03"}},
		{"CS-03 NL maximum is 100 big blinds", nlA, 50000, want{ok: true, min: 20000, max: 50000, rule: "CS-03"}},
		{"CS-03 below minimum refused with range", nlA, 19999, want{min: 20000, max: 50000, rule: "CS-03", reason: "BUY_IN_BELOW_MINIMUM"}},
		{"CS-03 above maximum refused with range", nlA, 50001, want{min: 20000, max: 50000, rule: "CS-03", reason: "BUY_IN_ABOVE_MAXIMUM"}},
		{"CS-03 PL uses the same range", plC, 35000, want{ok: true, min: 20000, max: 50000, rule: "CS-03"}},
		{"CS-01 partial seat-in refused", nlA, 10000, want{min: 20000, max: 50000, rule: "CS-03", reason: "BUY_IN_BELOW_MINIMUM"}},
		{"CS-02 FL minimum is 10 big bets", flD, 2000, want{ok: true, min: 2000, max: NoMaximum, rule: "CS-02"}},
		{"CS-02 FL has no maximum", flD, 10_000_000, want{ok: true, min: 2000, max: NoMaximum, rule: "CS-02"}},
		{"CS-02 FL below 10 big bets refused", flD, 1999, want{min: 2000, max: NoMaximum, rule: "CS-02", reason: "BUY_IN_BELOW_MINIMUM"}},
		{"zero amount is invalid", nlA, 0, want{kind: fault.Invalid, reason: "AMOUNT_NOT_POSITIVE"}},
		{"negative amount is invalid", nlA, -20000, want{kind: fault.Invalid, reason: "AMOUNT_NOT_POSITIVE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			check(t, p, tc.game, Situation{Now: now}, tc.amount, tc.want)
		})
	}
}

func TestBuyIn_InvalidGame(t *testing.T) {
	t.Parallel()
	p := DefaultProfile()
	for _, g := range []Game{
		{Table: "x", Structure: NoLimit},
		{Table: "x", Structure: FixedLimit, BigBlind: 500},
		{Table: "x", Structure: "Omaha", BigBlind: 500},
		{Table: "x", Structure: NoLimit, BigBlind: 1 << 62},
	} {
		if _, err := p.Decide(g, Situation{}); fault.KindOf(err) != fault.Invalid {
			t.Errorf("Decide(%+v) = %v, want invalid", g, err)
		}
	}
}

func TestBuyIn_SeatedPlayer_CS07(t *testing.T) {
	t.Parallel()
	p := DefaultProfile()
	now := evening().Now()
	tests := []struct {
		name   string
		stack  int64
		amount int64
		want   want
	}{
		{"CS-07 top-up of any amount while chips remain", 10000, 1, want{ok: true, min: 1, max: 40000, rule: "G-19"}},
		{"CS-07 top-up up to the maximum (G-19)", 10000, 40000, want{ok: true, min: 1, max: 40000, rule: "G-19"}},
		{"G-19 top-up above the maximum refused", 10000, 40001, want{min: 1, max: 40000, rule: "G-19", reason: "TOP_UP_ABOVE_MAXIMUM"}},
		{"G-19 no top-up at or above the maximum; the range never goes negative", 60000, 1, want{min: 1, max: 0, rule: "G-19", reason: "TOP_UP_ABOVE_MAXIMUM"}},
		{"CS-07 rebuy after going broke at least the minimum", 0, 20000, want{ok: true, min: 20000, max: 50000, rule: "CS-07"}},
		{"CS-07 rebuy after going broke below the minimum refused", 0, 5000, want{min: 20000, max: 50000, rule: "CS-07", reason: "BUY_IN_BELOW_MINIMUM"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			check(t, p, nlA, Situation{Seated: true, Stack: tc.stack, Now: now}, tc.amount, tc.want)
		})
	}

	uncapped := DefaultProfile()
	uncapped.TopUpCappedAtMaximum = false
	t.Run("CS-07 without the G-19 cap a top-up is any amount", func(t *testing.T) {
		t.Parallel()
		check(t, uncapped, nlA, Situation{Seated: true, Stack: 10000, Now: now}, 1_000_000, want{ok: true, min: 1, max: NoMaximum, rule: "CS-07"})
	})
	t.Run("CS-07 FL top-up is uncapped", func(t *testing.T) {
		t.Parallel()
		check(t, p, flD, Situation{Seated: true, Stack: 10000, Now: now}, 1_000_000, want{ok: true, min: 1, max: NoMaximum, rule: "CS-07"})
	})
}

func TestBuyIn_ReturnAndTableChange(t *testing.T) {
	t.Parallel()
	p := DefaultProfile()
	leftAt := evening().Now()
	later := leftAt.Add(90 * time.Minute)
	left := func(g Game, stack int64) []Departure {
		return []Departure{{Table: g.Table, Structure: g.Structure, Stack: stack, At: leftAt}}
	}
	tests := []struct {
		name   string
		game   Game
		deps   []Departure
		amount int64
		want   want
	}{
		{"CS-09 same table same evening brings the stack above the maximum", nlA, left(nlA, 80000), 80000,
			want{ok: true, min: 80000, max: 80000, rule: "CS-09"}},
		{"CS-09 less than the stack left with is refused", nlA, left(nlA, 80000), 50000,
			want{min: 80000, max: 80000, rule: "CS-09", reason: "BUY_IN_BELOW_DEPARTURE_STACK"}},
		{"CS-09 stack within range: at least the stack, up to the maximum", nlA, left(nlA, 30000), 50000,
			want{ok: true, min: 30000, max: 50000, rule: "CS-09"}},
		{"CS-09 stack below the minimum: at least the minimum", nlA, left(nlA, 5000), 19000,
			want{min: 20000, max: 50000, rule: "CS-03", reason: "BUY_IN_BELOW_MINIMUM"}},
		{"CS-09 FL return has no cap", flD, left(flD, 9000), 9000,
			want{ok: true, min: 9000, max: NoMaximum, rule: "CS-09"}},
		{"CS-10 table change brings the whole stack capped at the maximum", nlB, left(nlA, 80000), 50000,
			want{ok: true, min: 50000, max: 50000, rule: "CS-10"}},
		{"CS-10 table change with less than the stack refused", nlB, left(nlA, 30000), 29999,
			want{min: 30000, max: 50000, rule: "CS-10", reason: "BUY_IN_BELOW_STACK_CARRIED"}},
		{"CS-10 table change above the new maximum refused", nlB, left(nlA, 80000), 80000,
			want{min: 50000, max: 50000, rule: "CS-03", reason: "BUY_IN_ABOVE_MAXIMUM"}},
		{"CS-10 G-19 short stack buys in like a new player", nlB, left(nlA, 5000), 20000,
			want{ok: true, min: 20000, max: 50000, rule: "CS-10"}},
		{"CS-11 structure change may start at the minimum", plC, left(nlA, 80000), 20000,
			want{ok: true, min: 20000, max: 50000, rule: "CS-11"}},
		{"CS-11 structure change still has the table range", plC, left(nlA, 80000), 80000,
			want{min: 20000, max: 50000, rule: "CS-03", reason: "BUY_IN_ABOVE_MAXIMUM"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			check(t, p, tc.game, Situation{Departures: tc.deps, Now: later}, tc.amount, tc.want)
		})
	}

	t.Run("CS-09 latest departure from this table counts, not a later one elsewhere", func(t *testing.T) {
		t.Parallel()
		deps := []Departure{
			{Table: "A", Structure: NoLimit, Stack: 70000, At: leftAt},
			{Table: "C", Structure: PotLimit, Stack: 1000, At: leftAt.Add(time.Hour)},
		}
		check(t, p, nlA, Situation{Departures: deps, Now: leftAt.Add(2 * time.Hour)}, 60000,
			want{min: 70000, max: 70000, rule: "CS-09", reason: "BUY_IN_BELOW_DEPARTURE_STACK"})
	})
}

func TestBuyIn_GamingDayBoundary_G20(t *testing.T) {
	t.Parallel()
	p := DefaultProfile() // cut-off 06:00 Europe/Helsinki
	tests := []struct {
		name     string
		left     time.Time
		returned time.Duration
		want     want
	}{
		{"G-20 CS-09 after midnight is still the same evening",
			time.Date(2026, 11, 30, 23, 0, 0, 0, helsinki), 6*time.Hour + 59*time.Minute,
			want{min: 80000, max: 80000, rule: "CS-09", reason: "BUY_IN_BELOW_DEPARTURE_STACK"}},
		{"G-20 CS-09 ends at the 06:00 cut-off",
			time.Date(2026, 12, 1, 5, 59, 0, 0, helsinki), 2 * time.Minute,
			want{ok: true, min: 20000, max: 50000, rule: "CS-03"}},
		{"G-20 a departure before the cut-off and a return after it are different days",
			time.Date(2026, 12, 1, 5, 0, 0, 0, helsinki), time.Hour,
			want{ok: true, min: 20000, max: 50000, rule: "CS-03"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake(tc.left)
			deps := []Departure{{Table: "A", Structure: NoLimit, Stack: 80000, At: clk.Now()}}
			clk.Advance(tc.returned)
			check(t, p, nlA, Situation{Departures: deps, Now: clk.Now()}, 50000, tc.want)
		})
	}
}

func TestBuyIn_QuickReturnSwitch_CS04(t *testing.T) {
	t.Parallel()
	on := DefaultProfile()
	on.QuickReturnWaivesMaximum = true
	off := DefaultProfile()
	tests := []struct {
		name    string
		profile Profile
		after   time.Duration
		amount  int64
		want    want
	}{
		{"CS-04 on: within 20 minutes the maximum is waived", on, 20 * time.Minute, 80000,
			want{ok: true, min: 80000, max: 80000, rule: "CS-04"}},
		{"CS-04 on: after 20 minutes the maximum applies", on, 20*time.Minute + time.Second, 80000,
			want{min: 50000, max: 50000, rule: "CS-04", reason: "BUY_IN_ABOVE_MAXIMUM"}},
		{"CS-04 on: after 20 minutes the stack is capped at the maximum", on, 21 * time.Minute, 50000,
			want{ok: true, min: 50000, max: 50000, rule: "CS-04"}},
		{"CS-04 off (001 governs): CS-09 requires the whole stack at any time", off, 3 * time.Hour, 50000,
			want{min: 80000, max: 80000, rule: "CS-09", reason: "BUY_IN_BELOW_DEPARTURE_STACK"}},
		{"CS-04 off: within 20 minutes CS-09 too", off, 5 * time.Minute, 80000,
			want{ok: true, min: 80000, max: 80000, rule: "CS-09"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := evening()
			deps := []Departure{{Table: "A", Structure: NoLimit, Stack: 80000, At: clk.Now()}}
			clk.Advance(tc.after)
			check(t, tc.profile, nlA, Situation{Departures: deps, Now: clk.Now()}, tc.amount, tc.want)
		})
	}
}
