// Package engine is the rules core of the table service: one poker hand as a
// state machine. A Hand is built from a Config (game, structure, stakes, rule
// profile) and a Setup (button, players, forced posts, injected deck). Apply
// takes one Action and returns the Events it caused, or a *refusal.Error naming the
// RULES.md rule that refuses it, leaving the state unchanged. LegalActions says
// exactly what may be done now. The state serializes losslessly to JSON.
//
// The engine has no I/O, no clock and no randomness of its own: the deck is
// injected and dealt in order (hole cards round-robin starting left of the
// button, TP-09), and time limits are data the service enforces (TP-59) by
// applying a Timeout action.
//
// Every amount is in chips (int64). Bet, Raise, Complete and Call amounts are
// totals for the betting round ("raise to", TP-32).
//
// A hand moves through three phases:
//
//   - PhaseBetting: the seat ToAct chooses among LegalActions (Fold, Check,
//     Call, Bet, Raise; stud BringIn/Complete; Withdraw after an overtaken
//     out-of-turn wager, TP-52). Closing a round returns the uncalled bet
//     (TP-44) and deals the next street; when nobody can bet any more the
//     board is run out (all-in hands exposed per TP-45 / G-22).
//   - PhaseShowdown: from the first to show (TP-62, TP-63) clockwise, each
//     seat that could still win chooses Show or Muck (hands that cannot win
//     are mucked automatically, TP-66); RequestShow and Waive implement
//     TP-65; the last hand holding cards wins unshown (TP-64).
//   - PhaseDone: pots are awarded (side pots from contribution levels,
//     TP-44; odd chips TP-73…TP-77); Results gives pots, winners and final
//     stacks. The uncontested winner may still Show (TP-70).
//
// Dealer/floor actions (Action.By) work in any phase where they apply:
// Kill (TP-53…TP-59), Revive (TP-60, live), Expose and ExposeLive (TP-58,
// live), RestrictRaise (TP-49), Skip (TP-47), BoardOverdeal (TP-78, TP-79,
// live), Misdeal (G-32, live). Timeout (TP-59) folds when facing a bet,
// otherwise checks.
//
// Physical cards (Config.Physical, live tables): the engine deals no card
// itself. Hole cards are cards.Unknown until entered — by the dealer or a
// shuffler feed where the house allows it (DealSeat, Config.HoleEntry), by
// an exposure (Expose) or when the hand is tabled (Show, RequestShow with
// Action.Cards). Each street's public cards are awaited before its round
// begins (Awaiting): the board by DealBoard, a stud up card by DealSeat.
// Entered cards are checked against every card seen in the hand; the
// showdown judges the tabled cards (TP-68), or, where the house allows it
// (Config.WinnerEntry), the floor awards each pot (AwardPot). The same
// state machine runs both: what differs is where a card comes from.
// ApplyOutOfTurn records live-mode out-of-turn actions (TP-49, TP-51, TP-52);
// Betting describes the seat in turn for engine/live's interpretation.
//
// Views: View (a seat's redacted view), HistoryView (plus TP-66 auto-mucked
// hands) and FullView (audit, TP-71). Persistence: MarshalJSON /
// UnmarshalJSON (and the Binary equivalents) round-trip the whole state;
// Clone deep-copies it. Reset reuses a Hand's memory for the next hand.
package engine

import (
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// Game is the poker variant dealt.
type Game uint8

// Games the engine deals.
const (
	Holdem Game = iota
	Omaha
	OmahaHiLo
	Stud
	StudHiLo
	Razz
)

var gameNames = [...]string{"holdem", "omaha", "omaha_hilo", "stud", "stud_hilo", "razz"}

// String returns the game's short name.
func (g Game) String() string { return nameOf(gameNames[:], g, "game?") }

// IsStud reports whether the game is a seven-card stud variant (no button
// blinds, bring-in, up cards).
func (g Game) IsStud() bool { return g == Stud || g == StudHiLo || g == Razz }

// IsHiLo reports whether pots are split between high and low (G-17: 8 or better).
func (g Game) IsHiLo() bool { return g == OmahaHiLo || g == StudHiLo }

// HoleCards is the number of private cards dealt before the first betting
// round in flop games (2 or 4); stud games return 3 (2 down, 1 up).
func (g Game) HoleCards() int {
	switch g {
	case Holdem:
		return 2
	case Omaha, OmahaHiLo:
		return 4
	default:
		return 3
	}
}

// Structure is the betting structure.
type Structure uint8

// Betting structures.
const (
	NoLimit Structure = iota
	PotLimit
	FixedLimit
)

var structureNames = [...]string{"no_limit", "pot_limit", "fixed_limit"}

// String returns the structure's short name.
func (s Structure) String() string { return nameOf(structureNames[:], s, "structure?") }

// Mode is the deployment mode of RULES.md §0.3.
type Mode uint8

// Deployment modes.
const (
	// Digital: the engine is the dealer and players submit exact actions;
	// acting out of turn is refused (TP-46).
	Digital Mode = iota
	// Live: a human dealer enters what happened; out-of-turn actions can be
	// recorded (ApplyOutOfTurn) and floor actions are available.
	Live
)

// Stakes are the amounts of the forced bets and betting units. Zero fields
// take defaults in NewHand: ChipUnit 1; SmallBet = BigBlind and BigBet =
// 2 × SmallBet in fixed limit.
type Stakes struct {
	SmallBlind   int64 `json:"sb,omitempty"`
	BigBlind     int64 `json:"bb,omitempty"`
	Ante         int64 `json:"ante,omitempty"`
	BigBlindAnte int64 `json:"bba,omitempty"`
	BringIn      int64 `json:"bring_in,omitempty"`
	SmallBet     int64 `json:"small_bet,omitempty"`
	BigBet       int64 `json:"big_bet,omitempty"`
	ChipUnit     int64 `json:"chip_unit,omitempty"` // TP-31 min_chip_unit
}

// MinBetBase says what the PL/NL minimum opening bet is (TP-21).
type MinBetBase uint8

// Minimum-bet bases (TP-21).
const (
	MinBetBigBlind MinBetBase = iota
	MinBetAnte
)

// PresencePoint is when a tournament seat must be present (TP-57).
type PresencePoint uint8

// Presence check points (TP-57).
const (
	PresenceDealComplete PresencePoint = iota // 003 r14 (default)
	PresenceFirstCard                         // 001
)

// Profile holds the room's rule parameters: the configurable rules and the
// house defaults for the gaps of RULES.md §7 (cited by G-ID). DefaultProfile
// returns the "helsinki" profile.
type Profile struct {
	Name string `json:"name"`
	// MinBet is the PL/NL minimum bet base (TP-21).
	MinBet MinBetBase `json:"min_bet"`
	// PotRaiseAfterCall measures the pot-limit maximum raise after the
	// raiser's call (G-03 default true, TP-25).
	PotRaiseAfterCall bool `json:"pot_raise_after_call"`
	// MaxRaises is the fixed-limit raise cap per round after the bet (TP-29: 3).
	MaxRaises int `json:"max_raises"`
	// SmallRounds is how many betting rounds use the small bet in flop games (TP-27: 2).
	SmallRounds int `json:"small_rounds"`
	// CashAllInFaceUp exposes all live hands when betting is closed with an
	// all-in player on cash tables (G-22; tournaments always do, TP-45).
	CashAllInFaceUp bool `json:"cash_allin_face_up"`
	// ClockSeconds and ClockCountdownSeconds are the TP-59 clock: after the
	// clock is called the player has ClockSeconds, then a countdown of
	// ClockCountdownSeconds; on expiry the service applies Timeout.
	ClockSeconds          int `json:"clock_seconds"`
	ClockCountdownSeconds int `json:"clock_countdown_seconds"`
	// CashActionSeconds is the cash-game time limit (G-16: house policy, 0 = none).
	CashActionSeconds int `json:"cash_action_seconds"`
	// Presence is the tournament presence check point (TP-57).
	Presence PresencePoint `json:"presence"`
	// FoldWhenCheckFree allows a fold when checking is free (always allowed in live mode).
	FoldWhenCheckFree bool `json:"fold_when_check_free"`
	// NoCumulativeReopen switches off G-02 (TDA default: several short
	// all-ins that add up to a full raise reopen the betting).
	NoCumulativeReopen bool `json:"no_cumulative_reopen,omitempty"`
	// OpenPairSmallRaises switches off G-18 (default: once the big bet is
	// made on a stud open-pair 4th street, raises are in the big unit).
	OpenPairSmallRaises bool `json:"open_pair_small_raises,omitempty"`
	// StudHiLoOpenPair switches off G-46 (default: TP-28's open pair is a
	// seven-card stud rule, and in Stud Hi/Lo the round stays in the small
	// unit): Stud Hi/Lo then gives the big-unit option too.
	StudHiLoOpenPair bool `json:"stud_hi_lo_open_pair,omitempty"`
}

// DefaultProfile returns the "helsinki" profile: the seeds' values and the
// §7 house defaults.
func DefaultProfile() Profile {
	return Profile{
		Name:                  "helsinki",
		MinBet:                MinBetBigBlind,
		PotRaiseAfterCall:     true, // G-03
		MaxRaises:             3,    // TP-29
		SmallRounds:           2,    // TP-27
		CashAllInFaceUp:       false,
		ClockSeconds:          60, // TP-59
		ClockCountdownSeconds: 10, // TP-59
		Presence:              PresenceDealComplete,
	}
}

// Config describes the game a hand is played under.
type Config struct {
	Game       Game      `json:"game"`
	Structure  Structure `json:"structure"`
	Stakes     Stakes    `json:"stakes"`
	Tournament bool      `json:"tournament,omitempty"`
	Mode       Mode      `json:"mode,omitempty"`
	// Burn deals a burn card before each later street (flop, turn, river;
	// stud 4th–7th). Off by default so replays can inject exactly the dealt cards.
	Burn    bool    `json:"burn,omitempty"`
	Profile Profile `json:"profile"`
	// Physical (live mode only): the cards are physical and the dealer
	// enters them as they are dealt; Setup.Deck is not used. See the
	// package comment.
	Physical bool `json:"physical,omitempty"`
	// HoleEntry (physical): the house enters each seat's hole cards as
	// dealt (DealSeat, by the dealer or a shuffler/RFID feed); the seat's
	// player then sees them. Off, hole cards are unknown until exposed or
	// tabled.
	HoleEntry bool `json:"hole_entry,omitempty"`
	// WinnerEntry (physical): at the showdown the floor enters the winners
	// of each pot (AwardPot) instead of the tabled cards.
	WinnerEntry bool `json:"winner_entry,omitempty"`
	// DeadAntes makes every ante dead money in the main pot, as PHH's
	// reference implementation counts antes, rather than a part of its
	// poster's contribution level (TP-44). The PHH replayer sets it: a
	// file's antes may be a dead small blind or an ante posted short,
	// where the two readings build different pots. Tables leave it off.
	DeadAntes bool `json:"dead_antes,omitempty"`
}

// StatesPot tells whether the players are told the pot's size (TP-43): at
// a live table only in pot-limit, where the dealer states it; elsewhere
// the dealer may only spread the chips for the player to see.
func (c Config) StatesPot() bool { return c.Mode != Live || c.Structure == PotLimit }

// SmallestChip is the smallest chip the stakes are posted in (TP-31), a
// cash table's min_chip_unit unless the floor sets one: the largest amount
// that divides every blind, ante, bring-in and fixed-limit bet — 5 at a
// 5/10 table, 25 at 25/50, 5 at 25/50 with a 5 ante. It is 1 when the
// stakes are all zero.
func (k Stakes) SmallestChip() int64 {
	g := int64(0)
	for _, v := range [...]int64{k.SmallBlind, k.BigBlind, k.Ante, k.BigBlindAnte, k.BringIn, k.SmallBet, k.BigBet} {
		for v != 0 {
			g, v = v, g%v
		}
	}
	return max(g, 1)
}

// Player is one seat dealt into the hand.
type Player struct {
	Seat  int    `json:"seat"`
	ID    string `json:"id"`
	Stack int64  `json:"stack"`
	// Absent marks a tournament seat whose player is away: it is dealt to
	// and its hand is killed at the presence check (TP-57, C-06). Cash
	// tables do not deal absent players in (TP-56), so never set it there.
	Absent bool `json:"absent,omitempty"`
}

// PostKind is a forced bet made before the deal.
type PostKind uint8

// Forced bets. Live posts count toward the poster's bet for the first round;
// dead posts go to the pot without counting (TP-10). The values are stable
// (engine/button mirrors them).
const (
	PostAnte              PostKind = iota // dead
	PostSmallBlind                        // live
	PostBigBlind                          // live
	PostStraddle                          // live, cash only (TP-20)
	PostDeadSmallBlind                    // dead (TP-15, G-06)
	PostMissedBigBlind                    // live (TP-15)
	PostNewPlayerBigBlind                 // live (TP-13)
	PostBigBlindAnte                      // dead
)

var postNames = [...]string{"ante", "small_blind", "big_blind", "straddle", "dead_small_blind", "missed_big_blind", "new_player_big_blind", "big_blind_ante"}

// String returns the post kind's name.
func (k PostKind) String() string { return nameOf(postNames[:], k, "post?") }

// Live reports whether the post counts toward the poster's bet (TP-10).
func (k PostKind) Live() bool {
	switch k {
	case PostSmallBlind, PostBigBlind, PostStraddle, PostMissedBigBlind, PostNewPlayerBigBlind:
		return true
	}
	return false
}

// Post is one forced bet. A short stack posts what it has (G-31: the bet
// sizes of the hand do not change).
type Post struct {
	Seat   int      `json:"seat"`
	Kind   PostKind `json:"kind"`
	Amount int64    `json:"amount"`
	// Rule is the rule that demands the post (a returning player's dead
	// small blind is TP-15 or TP-18, not the ordinary blinds' TP-10); the
	// post's event cites it. Empty means TP-10.
	Rule string `json:"rule,omitempty"`
}

// Setup is everything that varies per hand: who plays, the button, the
// forced posts and the deck.
type Setup struct {
	Button  int      `json:"button"`
	Players []Player `json:"players"`
	// Posts are the forced bets in posting order. Nil means the standard
	// posts: antes (Stakes.Ante) from everyone; in flop games the small
	// blind left of the button (the button itself heads-up, G-04), the big
	// blind next and the big-blind ante from the big blind. Button-planning
	// (missed blinds, TP-12…TP-19) supplies explicit posts. The first
	// PostBigBlind marks the big-blind position: pre-flop action starts
	// after it, or after the straddle (TP-11, TP-20).
	Posts []Post `json:"posts,omitempty"`
	// Deck is dealt in order. It must hold enough distinct valid cards for
	// the deal to the river / 7th street. A physical hand (Config.Physical)
	// takes none: its cards are entered as dealt.
	Deck cards.Deck `json:"deck"`
}
