// Package button plans what happens between two hands at a blind-game table:
// where the button and the blinds go, who posts what, who is dealt in and who
// is skipped, and what each seat owes in missed blinds afterwards
// (RULES.md TP-09…TP-20, TR-21, G-04, G-05, G-06, G-31).
//
// The package is pure and depends on the standard library and engine/refusal
// (its refusals) only. Seats are
// numbered from 0, in clockwise order, as indexes into Table.Seats; NoSeat
// (-1) stands for "none". Post kinds have the same names and numeric values
// as package engine's PostKind, so a Plan converts to engine.Setup field by
// field (see Plan.Players and Plan.Posts).
//
// Model, in short:
//
//   - The big blind always advances: it goes to the next seat after last
//     hand's big blind whose player can play (TP-09, TP-12, G-05). Nobody
//     escapes it, and nobody pays it twice in a row.
//   - The small blind follows: it is posted from last hand's big-blind seat
//     when that player is still in the game, otherwise there is no small
//     blind this hand (dead small blind, G-05).
//   - The button goes to last hand's small-blind position. With DeadButton
//     (always on tournament tables, TR-21) it may rest in front of an empty
//     seat; with ButtonOnPlayer (the cash default, TP-09) it rests on the
//     nearest player to the right of the small blind instead, so the same
//     player may keep it for a second hand. A new player who let the big
//     blind pass and chose to post now takes the button when it moves on
//     from last hand's button to their seat first, and posts both blinds
//     there (TP-16).
//   - Heads-up (two players who can play) the big blind still advances and
//     the other player has the button and posts the small blind (G-04).
//   - Cash: a seat that sits out, or has no chips, while the big blind passes
//     it owes a big blind, and while the small blind passes it owes a small
//     blind (TP-15, TP-18, TP-19). A new player owes nothing until the big
//     blind reaches them (TP-13); if they let it pass they owe both (TP-16).
//     Debts are settled by posting (Options) or by taking the big blind in
//     turn (TP-15). Nobody enters between the button and the big blind
//     without the blind of that seat (TP-17, G-06).
//   - Tournament: everyone with chips is dealt in, absent players too
//     (C-06; the engine kills an absent hand at the presence check, TP-57);
//     there are no debts and no straddle (TP-20).
//
// Using a plan: engine.Setup{Button: plan.Positions.Button, Players: one
// engine.Player{Seat, ID, Stack, Absent} per plan.Players entry, Posts: one
// engine.Post{Seat, Kind: engine.PostKind(q.Kind), Amount, Rule} per plan.Posts
// entry, Deck: ...}. Stacks are before the posts; the posts are already
// capped at the stacks. After the hand, feed plan.Positions back as
// Table.Previous and plan.Next(seats) (with the hand's stacks) as Table.Seats.
package button

import (
	"fmt"
	"slices"
)

// NoSeat marks "no seat": no previous hand, no small blind, no straddle.
const NoSeat = -1

// MaxSeats is the largest table the planner accepts (the engine deals to
// seats 0…9).
const MaxSeats = 10

// PostKind is a forced bet made before the deal. The names and values are
// those of package engine's PostKind, so engine.PostKind(k) converts.
type PostKind uint8

// Forced bets. Live posts count toward the poster's bet on the first round;
// dead posts go to the pot without counting (TP-10).
const (
	PostAnte              PostKind = iota // dead
	PostSmallBlind                        // live (TP-10, TP-14)
	PostBigBlind                          // live (TP-10, TP-14)
	PostStraddle                          // live, cash only (TP-20)
	PostDeadSmallBlind                    // dead (TP-15; TP-16/TP-18 by G-06)
	PostMissedBigBlind                    // live (TP-15, TP-16)
	PostNewPlayerBigBlind                 // live (TP-13)
	PostBigBlindAnte                      // dead
)

var postNames = [...]string{"ante", "small_blind", "big_blind", "straddle", "dead_small_blind", "missed_big_blind", "new_player_big_blind", "big_blind_ante"}

// String returns the post kind's name, as package engine spells it.
func (k PostKind) String() string {
	if int(k) < len(postNames) {
		return postNames[k]
	}
	return fmt.Sprintf("post(%d)", k)
}

// Live reports whether the post counts toward the poster's bet (TP-10).
func (k PostKind) Live() bool {
	switch k {
	case PostSmallBlind, PostBigBlind, PostStraddle, PostMissedBigBlind, PostNewPlayerBigBlind:
		return true
	}
	return false
}

// Post is one forced bet. Amount is what the seat actually puts in: a short
// stack posts what it has and is all-in (G-31: the bet sizes of the hand stay
// the same). Rule names the rule that demands the post.
type Post struct {
	Seat   int
	Kind   PostKind
	Amount int64
	Live   bool
	AllIn  bool
	Rule   string
}

// Debt is what a cash seat owes for blinds that passed it while it was not
// dealt in. The amounts are the table's current blinds at the time of
// posting; a seat owes at most one of each.
type Debt struct {
	SmallBlind bool
	BigBlind   bool
}

// Owes reports whether the seat owes any blind.
func (d Debt) Owes() bool { return d.SmallBlind || d.BigBlind }

// Seat is one seat at the table between hands. The zero Seat is empty.
type Seat struct {
	// Player identifies the seated player; "" means the seat is empty.
	Player string
	// Stack is the player's chips on the table (CS-05).
	Stack int64
	// SittingOut marks a player who does not want to be dealt in. On
	// tournament tables it means absent: the seat is dealt to anyway (C-06).
	SittingOut bool
	// New marks a player who has not been dealt a hand since sitting down at
	// this table (TP-13, TP-16; on tournament tables, a player just moved in).
	New bool
	// PostNow is the player's choice to pay what they owe now and be dealt in
	// at once (TP-13, TP-15, TP-16, TP-18). Without it a player who owes waits
	// for the big blind.
	PostNow bool
	// Straddle asks to straddle this hand (TP-20). Only Plan.StraddleOffer
	// may, on a cash table.
	Straddle bool
	// Rebought marks a player who went broke and bought chips again; their
	// debts are collected under TP-19.
	Rebought bool
	// Debt is what the seat owes in missed blinds (cash).
	Debt Debt
}

// Occupied reports whether a player sits in the seat.
func (s Seat) Occupied() bool { return s.Player != "" }

// Sit returns the seat of a player who has just sat down with stack: new,
// owing nothing, waiting for the big blind until they choose to post (TP-13).
func Sit(player string, stack int64) Seat {
	return Seat{Player: player, Stack: stack, New: true}
}

// Positions are the button and blind positions of one hand. SmallBlind is the
// small-blind position even when nobody posted there (a dead small blind),
// because the next hand's button is placed from it. Button may be an empty
// seat under DeadButton.
type Positions struct {
	Button     int
	SmallBlind int
	BigBlind   int
}

// FirstHand returns the positions to plan a table's first hand from: the
// button starts at button (drawn, TR-07 / G-28) and the blinds are the next
// players after it.
func FirstHand(button int) Positions {
	return Positions{Button: button, SmallBlind: NoSeat, BigBlind: NoSeat}
}

// Method is how the button is placed around empty seats (G-05).
type Method uint8

// Button methods.
const (
	// ButtonOnPlayer is the cash default: the big blind advances, the small
	// blind follows it, and the button rests on a player — the one who had
	// the small blind, or the nearest player to the right when that seat is
	// empty (TP-09, G-05).
	ButtonOnPlayer Method = iota
	// DeadButton places the button on last hand's small-blind position even
	// when that seat is empty (G-05, TDA). Tournament tables always use it
	// (TR-21).
	DeadButton
)

// Stakes are the forced-bet sizes.
type Stakes struct {
	SmallBlind int64
	BigBlind   int64
	// Ante is each dealt-in player's ante, or with BigBlindAnte the one ante
	// the big blind posts for the table.
	Ante         int64
	BigBlindAnte bool
}

// Table is what the planner needs to know about a table between hands.
type Table struct {
	Seats []Seat
	// Previous are the last hand's positions, or FirstHand(button).
	Previous   Positions
	Stakes     Stakes
	Tournament bool
	// Method applies to cash tables; tournament tables use DeadButton.
	Method Method
}

// Skip is a seat with a player that is not dealt in, and why.
type Skip struct {
	Seat   int
	Rule   string
	Reason string
}

// Player is a dealt-in seat, shaped like engine.Player.
type Player struct {
	Seat  int
	ID    string
	Stack int64
	// Absent marks a tournament seat whose player is away (C-06, TP-57).
	Absent bool
}

// Plan is the setup of the next hand.
type Plan struct {
	// Positions feed the next call as Table.Previous.
	Positions Positions
	// SmallBlindDead is true when nobody posts the small blind.
	SmallBlindDead bool
	// HeadsUp is true when two players are dealt in (G-04): the button
	// posts the small blind, acts first before the flop and last after it.
	HeadsUp bool
	// Posts are the forced bets in posting order: blinds, big-blind ante,
	// debts and new-player posts, antes, straddle.
	Posts []Post
	// Players are the dealt-in seats in deal order: left of the button first,
	// the button last (TP-09).
	Players []Player
	// Skipped are the seats with a player that are not dealt in.
	Skipped []Skip
	// Debts are every seat's missed-blind debts after this hand's blinds
	// have passed, indexed by seat.
	Debts []Debt
	// StraddleOffer is the seat that may straddle (TP-20), or NoSeat.
	StraddleOffer int
	// Straddler is the seat that straddles this hand, or NoSeat.
	Straddler int
	// PreflopFirst is the seat that acts first before the flop (TP-11,
	// TP-20, G-04).
	PreflopFirst int
}

// DealtIn reports whether seat is dealt in.
func (p Plan) DealtIn(seat int) bool {
	return slices.ContainsFunc(p.Players, func(pl Player) bool { return pl.Seat == seat })
}

// Next returns the seats for planning the hand after this one: debts
// replaced by the plan's, and the one-hand choices (New, PostNow, Straddle,
// Rebought) cleared for the seats that were dealt in. Stacks are left alone:
// the caller applies the hand's result.
func (p Plan) Next(seats []Seat) []Seat {
	out := slices.Clone(seats)
	for i := range out {
		if i < len(p.Debts) {
			out[i].Debt = p.Debts[i]
		}
		out[i].Straddle = false
		if p.DealtIn(i) {
			out[i].New, out[i].PostNow, out[i].Rebought = false, false, false
		}
	}
	return out
}
