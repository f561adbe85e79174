package standings

import (
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

// PenaltyType is one of the penalties of TR-32, lightest first.
type PenaltyType uint8

// Penalty types (TR-32 a–e).
const (
	PenaltyUnspecified PenaltyType = iota
	Warning                        // (a) verbal warning
	MissedHands                    // (b) missed-hand penalty (TR-33)
	DeadHand                       // (c) the hand declared dead
	Disqualification               // (d) chips removed, placed at that moment (TR-34)
	Expulsion                      // (e) removed, no prize (TR-34)
)

var penaltyNames = [...]string{"unspecified", "warning", "missed_hands", "dead_hand", "disqualification", "expulsion"}

// String returns the type's name.
func (p PenaltyType) String() string {
	if int(p) < len(penaltyNames) {
		return penaltyNames[p]
	}
	return "penalty(" + strconv.Itoa(int(p)) + ")"
}

// Penalty is one recorded penalty (TR-32: type, reason, issued by, hand).
type Penalty struct {
	Type     PenaltyType
	Reason   string
	IssuedBy string
	Hand     int64
	Issued   time.Time
	// Rounds is the missed-hand penalty's length in rounds (TR-33).
	Rounds int
	// HandsToMiss is players at the table times rounds, counted when the
	// penalty is given (G-27).
	HandsToMiss int
	// Override is set when the floor chose a lighter penalty than the
	// history calls for (TR-02: the floor's decision, recorded).
	Override bool
}

// Record is one player's penalty history in one event.
type Record struct {
	PlayerID  string
	Penalties []Penalty
	// Missing is how many hands the player still sits out (TR-33).
	Missing int
}

// Penalty failures.
var (
	ErrPenaltyRounds    = fault.Rule(fault.Invalid, "TR-33", "PENALTY_ROUNDS", "a missed-hand penalty lasts one, two, three or four rounds")
	ErrPenaltyLighter   = fault.Rule(fault.Precondition, "TR-32", "PENALTY_NOT_ESCALATED", "repeated violations get increasing penalties; a lighter one needs an override")
	ErrPenaltyType      = fault.Invalidf("type", "unknown penalty type")
	ErrPenaltyNoPlayers = fault.Rule(fault.Invalid, "G-27", "PENALTY_PLAYER_COUNT", "the player count at the table must include the penalised player")
)

// HandsToMiss is the missed-hand penalty's length: one hand for every
// player at the table, the penalised player included, per round (TR-33:
// 7 players x 3 rounds = 21 hands). The count is taken when the penalty is
// given (G-27).
func HandsToMiss(playersAtTable, rounds int) (int, error) {
	if rounds < 1 || rounds > 4 {
		return 0, ErrPenaltyRounds.With("rounds", strconv.Itoa(rounds))
	}
	if playersAtTable < 1 || playersAtTable > 10 {
		return 0, ErrPenaltyNoPlayers.With("players_at_table", strconv.Itoa(playersAtTable))
	}
	return playersAtTable * rounds, nil
}

// Lightest returns the lightest penalty the history allows next: repeated
// violations get increasing penalties (TR-32), so after a warning the next
// is at least a missed-hand penalty; missed hands may repeat with more
// rounds.
func (r Record) Lightest() PenaltyType {
	var worst PenaltyType
	for _, p := range r.Penalties {
		worst = max(worst, p.Type)
	}
	switch worst {
	case PenaltyUnspecified:
		return Warning
	case Warning:
		return MissedHands
	}
	return worst
}

// Issue records a penalty. playersAtTable is counted now (G-27). A missed-
// hand penalty adds to the hands the player sits out; those run on across
// table moves (TR-33) because they are kept per player, not per table.
func (r *Record) Issue(p Penalty, playersAtTable int) error {
	if p.Type == PenaltyUnspecified || p.Type > Expulsion {
		return ErrPenaltyType
	}
	if p.Type < r.Lightest() && !p.Override {
		return ErrPenaltyLighter.With("lightest", r.Lightest().String())
	}
	if p.Type == MissedHands {
		n, err := HandsToMiss(playersAtTable, p.Rounds)
		if err != nil {
			return err
		}
		// A repeat missed-hand penalty must be longer than the last one.
		for _, q := range r.Penalties {
			if q.Type == MissedHands && !p.Override && (p.Rounds < q.Rounds || (p.Rounds == q.Rounds && q.Rounds < 4)) {
				return ErrPenaltyLighter.Withf("the last missed-hand penalty was %d rounds", q.Rounds)
			}
		}
		p.HandsToMiss = n
		r.Missing += n
	}
	r.Penalties = append(r.Penalties, p)
	return nil
}

// HandStarted counts one hand started at the player's current table and
// reports whether the player sits it out: their blinds and antes are
// posted and their cards are dealt and killed (G-27).
func (r *Record) HandStarted() (sitsOut bool) {
	if r.Missing == 0 {
		return false
	}
	r.Missing--
	return true
}
