// Package buyin decides how much a player may put on a cash table: the
// buy-in rules CS-01…CS-11 of RULES.md with the house defaults of gaps G-19
// and G-20. It is pure: the caller supplies the game, the player's seat and
// the player's departures, and gets back the allowed range or a refusal
// that names the rule and carries the range.
package buyin

import (
	"math"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/platform/gamingday"
	"github.com/cardroom/cardroom/services/wallet/ledger"
)

// Structure is a betting structure.
type Structure string

// Betting structures.
const (
	NoLimit    Structure = "NL"
	PotLimit   Structure = "PL"
	FixedLimit Structure = "FL"
)

// NoMaximum is Range.Max when there is no upper bound (limit games, CS-02).
const NoMaximum int64 = math.MaxInt64

// Range is the inclusive range of amounts allowed. Max is NoMaximum when
// unbounded. A range with Min > Max allows nothing.
type Range struct {
	Min, Max int64
}

// Empty reports whether no amount is allowed.
func (r Range) Empty() bool { return r.Min > r.Max }

// HasMax reports whether the range is bounded above.
func (r Range) HasMax() bool { return r.Max != NoMaximum }

// meta renders the range for a fault's metadata; "max" is empty when unbounded.
func (r Range) meta() []string {
	maxText := ""
	if r.HasMax() {
		maxText = strconv.FormatInt(r.Max, 10)
	}
	return []string{"min", strconv.FormatInt(r.Min, 10), "max", maxText}
}

// Game is what the policy needs to know about a cash table.
type Game struct {
	Table     string
	Structure Structure
	// BigBlind sets the range in NL and PL (CS-03).
	BigBlind int64
	// BigBet is the larger fixed bet in FL (CS-02).
	BigBet int64
}

// Profile is the room's configurable buy-in policy. DefaultProfile holds
// the seed values and the house defaults for the gaps.
type Profile struct {
	// MinBigBlinds and MaxBigBlinds are the NL/PL range in big blinds (CS-03).
	MinBigBlinds, MaxBigBlinds int64
	// MinBigBets is the FL minimum in big bets; FL has no maximum (CS-02).
	MinBigBets int64
	// TopUpCappedAtMaximum keeps a top-up from taking the stack above the
	// maximum buy-in (G-19). Without it a top-up may be any amount (CS-07).
	TopUpCappedAtMaximum bool
	// QuickReturnWaivesMaximum is the rule-profile switch for CS-04 (the
	// room reversing assumption A-1): a player returning to the same table
	// within QuickReturnWindow may bring back a stack above the maximum;
	// after it, the maximum caps what they bring. With the switch off (the
	// default, 001 governs) CS-09 requires the whole stack whatever the time.
	QuickReturnWaivesMaximum bool
	// QuickReturnWindow is CS-04's 20 minutes.
	QuickReturnWindow time.Duration
	// Day is the gaming day (G-20).
	Day gamingday.Day
}

// DefaultProfile returns the seed rules and house defaults: NL/PL 40–100
// big blinds, FL at least 10 big bets, top-ups capped at the maximum, CS-04
// off (001 governs), a 20-minute window when it is on, and a gaming day
// that ends at 06:00 in Helsinki.
func DefaultProfile() Profile {
	day, err := gamingday.Default().Day()
	if err != nil {
		// No time zone database: Helsinki's standard time.
		day = gamingday.Day{Location: time.FixedZone("EET", 2*60*60), Cutoff: 6 * time.Hour}
	}
	return Profile{
		MinBigBlinds: 40, MaxBigBlinds: 100, MinBigBets: 10,
		TopUpCappedAtMaximum: true,
		QuickReturnWindow:    20 * time.Minute,
		Day:                  day,
	}
}

// TableRange returns the table's buy-in range for a new player: CS-02 for
// FL and CS-03 for NL/PL.
func (p Profile) TableRange(g Game) (Range, error) {
	switch g.Structure {
	case NoLimit, PotLimit:
		if g.BigBlind <= 0 {
			return Range{}, fault.Invalidf("big_blind", "must be positive for %s, got %d", g.Structure, g.BigBlind)
		}
		lo, err := ledger.Mul(g.BigBlind, p.MinBigBlinds)
		if err != nil {
			return Range{}, err
		}
		hi, err := ledger.Mul(g.BigBlind, p.MaxBigBlinds)
		if err != nil {
			return Range{}, err
		}
		return Range{Min: lo, Max: hi}, nil
	case FixedLimit:
		if g.BigBet <= 0 {
			return Range{}, fault.Invalidf("big_bet", "must be positive for FL, got %d", g.BigBet)
		}
		lo, err := ledger.Mul(g.BigBet, p.MinBigBets)
		if err != nil {
			return Range{}, err
		}
		return Range{Min: lo, Max: NoMaximum}, nil
	default:
		return Range{}, fault.Invalidf("structure", "%q is not NL, PL or FL", g.Structure)
	}
}

// Situation is the player's position when asking to put chips on g.
type Situation struct {
	// Seated is true when the player already sits at this table.
	Seated bool
	// Stack is the player's chips at this table when seated.
	Stack int64
	// Departures are the player's cash-outs (any tables, any days; only
	// those of the current gaming day count).
	Departures []Departure
	// Now is the time of the request.
	Now time.Time
}

// Departure records a player leaving a table: the stack taken and the time,
// kept for CS-09 and CS-10.
type Departure struct {
	Table     string
	Structure Structure
	Stack     int64
	At        time.Time
}

// Case names which rule decided a buy-in.
type Case string

// Cases of a decision.
const (
	NewBuyIn        Case = "new_buy_in"       // CS-02/CS-03: first sit-down this gaming day
	TopUp           Case = "top_up"           // CS-07, capped by G-19
	RebuyAfterBroke Case = "rebuy"            // CS-07: stack is empty
	ReturnSameTable Case = "return"           // CS-09 (or CS-04 with the switch on)
	TableChange     Case = "table_change"     // CS-10
	StructureChange Case = "structure_change" // CS-11
)

// TableRule is the rule that sets a table's ordinary buy-in range
// (TableRange): CS-02 for FL, CS-03 for NL and PL.
func TableRule(s Structure) string {
	if s == FixedLimit {
		return "CS-02"
	}
	return "CS-03"
}

// Decision is what the player may put on the table now.
type Decision struct {
	Case Case
	// Rule is the RULES.md ID (or gap ID) that governs this case.
	Rule string
	// Range is the amounts allowed.
	Range Range
	// Table is the table's ordinary buy-in range (CS-02/CS-03).
	Table Range
	// Departure is the departure that shaped the decision, if any.
	Departure *Departure

	below, above refusal
}

type refusal struct{ rule, reason, text string }

// Decide returns what the player may buy in for at g now.
func (p Profile) Decide(g Game, s Situation) (Decision, error) {
	table, err := p.TableRange(g)
	if err != nil {
		return Decision{}, err
	}
	limitRule := TableRule(g.Structure)
	belowTable := refusal{limitRule, "BUY_IN_BELOW_MINIMUM", "below the table minimum"}
	aboveTable := refusal{limitRule, "BUY_IN_ABOVE_MAXIMUM", "above the table maximum"}
	d := Decision{Table: table, below: belowTable, above: aboveTable}

	if s.Seated {
		if s.Stack < 0 {
			return Decision{}, fault.Invalidf("stack", "must not be negative, got %d", s.Stack)
		}
		if s.Stack == 0 {
			// CS-07: after going broke, buy again in line with the minimum.
			d.Case, d.Rule, d.Range = RebuyAfterBroke, "CS-07", table
			d.below = refusal{"CS-07", "BUY_IN_BELOW_MINIMUM", "a rebuy after going broke must be at least the table minimum"}
			return d, nil
		}
		// CS-07: while chips remain, any amount; G-19 caps the stack at the maximum.
		d.Case, d.Rule, d.Range = TopUp, "CS-07", Range{Min: 1, Max: NoMaximum}
		if p.TopUpCappedAtMaximum && table.HasMax() {
			d.Rule = "G-19"
			// A stack already at or above the maximum (won there) may
			// add nothing: the range's top is 0, never negative.
			d.Range.Max = max(0, table.Max-s.Stack)
			d.above = refusal{"G-19", "TOP_UP_ABOVE_MAXIMUM", "a top-up may not take the stack above the maximum buy-in"}
		}
		return d, nil
	}

	day := p.Day.Of(s.Now)
	var sameTable, latest *Departure
	for i := range s.Departures {
		dep := &s.Departures[i]
		if p.Day.Of(dep.At) != day || dep.At.After(s.Now) {
			continue
		}
		if dep.Table == g.Table && (sameTable == nil || dep.At.After(sameTable.At)) {
			sameTable = dep
		}
		if latest == nil || dep.At.After(latest.At) {
			latest = dep
		}
	}

	switch {
	case sameTable != nil:
		dep := *sameTable
		d.Departure = &dep
		// CS-09: the same table the same evening means the stack left with,
		// at least the minimum; 001 states no cap, so the maximum does not
		// limit it.
		d.Case, d.Rule = ReturnSameTable, "CS-09"
		d.Range.Min = max(dep.Stack, table.Min)
		d.Range.Max = max(d.Range.Min, table.Max)
		d.below = refusal{"CS-09", "BUY_IN_BELOW_DEPARTURE_STACK", "returning to the same table the same gaming day requires the stack left with"}
		if dep.Stack < table.Min {
			d.below = belowTable
		}
		if p.QuickReturnWaivesMaximum && table.HasMax() && dep.Stack > table.Max {
			// CS-04 profile: the maximum is waived only within the window.
			d.Rule = "CS-04"
			if s.Now.Sub(dep.At) > p.QuickReturnWindow {
				d.Range = Range{Min: table.Max, Max: table.Max}
				d.above = refusal{"CS-04", "BUY_IN_ABOVE_MAXIMUM", "the maximum is waived only on a return within the quick-return window"}
				d.below = refusal{"CS-04", "BUY_IN_BELOW_DEPARTURE_STACK", "returning to the same table the same gaming day requires the stack left with, capped at the maximum"}
			}
		}
	case latest != nil && latest.Structure == g.Structure:
		dep := *latest
		d.Departure = &dep
		// CS-10: a table change within the structure brings the whole stack,
		// capped at the new maximum. A stack below the new minimum (G-19, no
		// standard) buys in like a new player.
		d.Case, d.Rule = TableChange, "CS-10"
		d.Range = Range{Min: min(dep.Stack, table.Max), Max: table.Max}
		if d.Range.Min < table.Min {
			d.Range.Min = table.Min
		} else {
			d.below = refusal{"CS-10", "BUY_IN_BELOW_STACK_CARRIED", "a table change within the same structure brings the whole stack, up to the maximum"}
		}
	case latest != nil:
		dep := *latest
		d.Departure = &dep
		// CS-11: a new structure may start at the minimum.
		d.Case, d.Rule, d.Range = StructureChange, "CS-11", table
	default:
		d.Case, d.Rule, d.Range = NewBuyIn, limitRule, table
	}
	return d, nil
}

// Check returns the decision if amount is allowed, or a refusal: Invalid
// for a non-positive amount, Precondition naming the rule and carrying the
// allowed range in the metadata ("min", "max"; max empty when unbounded).
func (p Profile) Check(g Game, s Situation, amount int64) (Decision, error) {
	d, err := p.Decide(g, s)
	if err != nil {
		return Decision{}, err
	}
	return d, d.Allow(amount)
}

// Allow checks amount against the decision.
func (d Decision) Allow(amount int64) error {
	if amount <= 0 {
		return ledger.ErrAmountNotPositive.Withf("buy-in amount %d must be positive", amount).With("field", "amount")
	}
	var r refusal
	switch {
	case d.Range.Empty():
		r = d.above
	case amount < d.Range.Min:
		r = d.below
	case amount > d.Range.Max:
		r = d.above
	default:
		return nil
	}
	return fault.Rule(fault.Precondition, r.rule, r.reason, r.text).
		With(d.Range.meta()...).With("case", string(d.Case), "amount", strconv.FormatInt(amount, 10))
}
