package engine

import (
	"encoding/json"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// ActionKind is what a player, dealer or floor does.
type ActionKind uint8

// Action kinds. Player actions first, then dealer/floor actions.
const (
	Fold     ActionKind = iota
	Check               // nothing to call
	Call                // Amount 0 or the call total
	Bet                 // Amount = total for the round (TP-32)
	Raise               // Amount = total "raise to" (TP-32)
	BringIn             // stud 3rd street forced opening (Amount = bring-in or 0)
	Complete            // stud: bring the bring-in up to the small bet (Amount = total)
	Show                // showdown: table all cards; after an uncalled win, TP-70
	Muck                // showdown: give up the hand unshown (TP-64)
	// RequestShow asks to see the last bettor's mucked hand; shown on
	// request it is live (TP-65). Seat is the requester.
	RequestShow
	// Waive is the last player holding cards declining a TP-65 request and
	// taking the pot unshown (TP-64).
	Waive
	// Timeout: the player's time ran out (TP-59): fold if facing a bet,
	// otherwise check; at showdown the hand is mucked.
	Timeout
	// Skip: a skipped seat is deemed to have checked or folded (TP-47);
	// same effect as Timeout, recorded under TP-47. Dealer/floor.
	Skip
	// Kill: the dealer/floor declares Seat's hand dead (Action.Kill says why:
	// TP-53, TP-54, TP-55, TP-56/57, TP-58, TP-59).
	Kill
	// Revive: the floor keeps a released hand alive (TP-60). Only the fold
	// just applied (nothing else happened since) can be revived.
	Revive
	// ExposeLive: the floor rules an exposed hand live without aggression
	// (TP-58): check, call or fold only for the rest of the hand.
	ExposeLive
	// RestrictRaise: Seat may not bet or raise for the rest of this round
	// (an out-of-turn check, TP-49). Dealer/floor.
	RestrictRaise
	// Withdraw: a seat whose out-of-turn wager was overtaken takes it back
	// and folds (tournaments, TP-52).
	Withdraw
	// BoardOverdeal: live board overdeal before any action on the street.
	// Amount 1 (TP-78): Cards[0] is the card the supervisor removed; it
	// becomes the next burn card. Amount ≥ 2 (TP-79): the street's cards
	// and the extra cards are voided; Cards is the reshuffled stub (the
	// street's cards plus the undealt cards, any order) and the street is
	// dealt again without a burn. With physical cards: see applyOverdeal.
	BoardOverdeal
	// DealBoard (physical): the dealer enters the community cards of the
	// street the hand awaits (Cards: three for the flop, one for the turn
	// and the river, the one stud community card).
	DealBoard
	// DealSeat (physical): the dealer enters Seat's cards — its awaited up
	// card (stud), the cards of its hand exposed to all (TP-45, G-22,
	// TP-58), or, where the house enters hole cards (Config.HoleEntry), its
	// hole cards as dealt.
	DealSeat
	// Expose: the dealer marks Seat's hole cards exposed before the betting
	// ended (TP-58; Cards, physical: the exposed cards). The floor then
	// rules the hand dead (Kill, KillExposed) or live without aggression
	// (ExposeLive); the seat's decisions wait for the ruling.
	Expose
	// Misdeal: the hand is void (G-32); every chip goes back. The dealer
	// declares it on the first betting round before substantial action;
	// the floor at any time before the pots are awarded.
	Misdeal
	// AwardPot (physical, Config.WinnerEntry): the floor awards pot Pot to
	// Winners (and the low half of a hi/lo pot to LowWinners).
	AwardPot
	numActionKinds
)

var actionNames = [...]string{"fold", "check", "call", "bet", "raise", "bring_in", "complete", "show", "muck", "request_show", "waive", "timeout",
	"skip", "kill", "revive", "expose_live", "restrict_raise", "withdraw", "board_overdeal", "deal_board", "deal_seat", "expose", "misdeal", "award_pot"}

// nameOf is names[k], the name of an enum value k, or unknown for a value
// past the names.
func nameOf[K ~uint8](names []string, k K, unknown string) string {
	if int(k) < len(names) {
		return names[k]
	}
	return unknown
}

// String returns the action kind's name.
func (k ActionKind) String() string { return nameOf(actionNames[:], k, "action?") }

// Role is who submits an action; the service sets it from the caller's token.
type Role uint8

// Roles (ARCHITECTURE.md).
const (
	RolePlayer Role = iota
	RoleDealer
	RoleFloor
)

// KillReason says why a hand is killed.
type KillReason uint8

// Kill reasons and the rule each applies.
const (
	KillUnprotected    KillReason = iota // TP-53: only an uncalled raise is refunded
	KillFouled                           // TP-54(g): mixed with other cards, unprotected
	KillWrongCardCount                   // TP-55: nothing refunded
	KillAbsent                           // TP-56 (cash) / TP-57 (tournament)
	KillExposed                          // TP-58: exposed before betting ended, ruled dead
	KillClockExpired                     // TP-59
	KillLeftTable                        // TP-56: player left mid-hand
	KillPenalty                          // TR-32 (c): a tournament penalty declares the hand dead
)

var killRules = [...]string{"TP-53", "TP-54", "TP-55", "TP-56", "TP-58", "TP-59", "TP-56", "TR-32"}

// Rule returns the rule ID the kill applies.
func (k KillReason) Rule() string { return nameOf(killRules[:], k, "") }

// Action is one input to Apply.
type Action struct {
	Seat   int        `json:"seat"`
	Kind   ActionKind `json:"kind"`
	Amount int64      `json:"amount,omitempty"`
	By     Role       `json:"by,omitempty"`
	Kill   KillReason `json:"kill,omitempty"`
	// Cards are cards entered with the action: an overdeal's (TP-78,
	// TP-79) and, with physical cards, what the dealer saw dealt, exposed
	// or tabled (DealBoard, DealSeat, Show, RequestShow, Expose,
	// ExposeLive, Kill with KillExposed, Skip with the cards dealt too
	// early, G-10).
	Cards []cards.Card `json:"cards,omitempty"`
	// Pot, Winners and LowWinners are an AwardPot entry.
	Pot        int   `json:"pot,omitempty"`
	Winners    []int `json:"winners,omitempty"`
	LowWinners []int `json:"low_winners,omitempty"`
}

// Legal is one action the seat in turn may take, with the inclusive amount
// range (Min == Max for fixed amounts; 0 for amount-less actions). In fixed
// limit with a stud open pair two Bet entries are offered (small and big).
type Legal struct {
	Seat int        `json:"seat"`
	Kind ActionKind `json:"kind"`
	Min  int64      `json:"min,omitempty"`
	Max  int64      `json:"max,omitempty"`
}

// EventKind is what happened.
type EventKind uint8

// Event kinds.
const (
	EvPost      EventKind = iota // forced bet (Post, Amount; Dead if dead)
	EvDealHole                   // private card(s) to Seat
	EvDealUp                     // stud up card to Seat
	EvDealBoard                  // community card(s)
	EvBurn                       // burn card
	EvFold
	EvCheck
	EvCall
	EvBet
	EvRaise
	EvBringIn
	EvComplete
	EvReturn   // uncalled bet or refund returned to Seat
	EvRoundEnd // betting round closed
	EvExpose   // cards revealed (all-in exposure TP-45/G-22, show on request TP-65)
	EvShow     // Seat showed
	EvMuck     // Seat mucked (Rule TP-66 when automatic)
	EvKill     // Seat's hand killed (Rule names why)
	EvRevive   // TP-60
	EvRestrict // Seat may no longer bet or raise (TP-49 round / TP-58 hand)
	EvAward    // Seat won Amount from pot Pot (Low marks the low half)
	EvHandEnd
	EvOverdeal // board corrected (TP-78/TP-79); cards dealt too early voided (G-10)
	EvMisdeal  // the hand is void (G-32): every chip went back
	// EvHoleEntry: the house entered Seat's face-down cards as dealt
	// (physical cards, Config.HoleEntry); private to Seat like EvDealHole.
	EvHoleEntry
)

var eventNames = [...]string{"post", "deal_hole", "deal_up", "deal_board", "burn", "fold", "check", "call", "bet", "raise", "bring_in", "complete",
	"return", "round_end", "expose", "show", "muck", "kill", "revive", "restrict", "award", "hand_end", "overdeal", "misdeal", "hole_entry"}

// String returns the event kind's name.
func (k EventKind) String() string { return nameOf(eventNames[:], k, "event?") }

// Event is one thing that happened. It is a plain value (no pointers) so
// the engine can reuse its event buffer. Seat is -1 when no seat applies.
// Cards holds NCards cards; EvDealHole cards are private to Seat.
type Event struct {
	Kind   EventKind     `json:"kind"`
	Seat   int           `json:"seat"`
	Amount int64         `json:"amount,omitempty"`
	Rule   string        `json:"rule,omitempty"`
	Post   PostKind      `json:"post,omitempty"`
	Dead   bool          `json:"dead,omitempty"`
	AllIn  bool          `json:"all_in,omitempty"`
	Pot    int           `json:"pot,omitempty"`
	Low    bool          `json:"low,omitempty"`
	Street Street        `json:"street,omitempty"`
	NCards uint8         `json:"n,omitempty"`
	Cards  [7]cards.Card `json:"cards"`
}

// CardList returns the event's cards.
func (e *Event) CardList() []cards.Card { return e.Cards[:e.NCards] }

// eventJSON is Event on the wire: cards as text ("AsKd"), only those held.
type eventJSON struct {
	Kind   EventKind `json:"kind"`
	Seat   int       `json:"seat"`
	Amount int64     `json:"amount,omitempty"`
	Rule   string    `json:"rule,omitempty"`
	Post   PostKind  `json:"post,omitempty"`
	Dead   bool      `json:"dead,omitempty"`
	AllIn  bool      `json:"all_in,omitempty"`
	Pot    int       `json:"pot,omitempty"`
	Low    bool      `json:"low,omitempty"`
	Street Street    `json:"street,omitempty"`
	Cards  string    `json:"cards,omitempty"`
}

// MarshalJSON writes the event with its cards as text.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(eventJSON{Kind: e.Kind, Seat: e.Seat, Amount: e.Amount, Rule: e.Rule, Post: e.Post, Dead: e.Dead,
		AllIn: e.AllIn, Pot: e.Pot, Low: e.Low, Street: e.Street, Cards: cards.Format(e.Cards[:e.NCards])})
}

// UnmarshalJSON reads an event written by MarshalJSON.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w eventJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	cs, err := cards.ParseListUnknown(w.Cards)
	if err != nil {
		return err
	}
	if len(cs) > len(e.Cards) {
		return ruleErr("", refusal.BadCard, "too many cards in an event")
	}
	*e = Event{Kind: w.Kind, Seat: w.Seat, Amount: w.Amount, Rule: w.Rule, Post: w.Post, Dead: w.Dead, AllIn: w.AllIn,
		Pot: w.Pot, Low: w.Low, Street: w.Street, NCards: uint8(len(cs))}
	copy(e.Cards[:], cs)
	return nil
}
