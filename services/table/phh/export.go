package phh

import (
	"fmt"
	"slices"

	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// Recorder plays a hand through the engine and keeps every event, so the
// hand can be exported when it is over. The engine reuses its event buffer
// between calls; Recorder copies.
type Recorder struct {
	cfg    engine.Config
	setup  engine.Setup
	hand   *engine.Hand
	events []engine.Event
}

// Record starts a hand (engine.NewHand) and records its first events.
func Record(cfg engine.Config, setup engine.Setup) (*Recorder, error) {
	h, err := engine.NewHand(cfg, setup)
	if err != nil {
		return nil, err
	}
	return &Recorder{cfg: cfg, setup: setup, hand: h, events: slices.Clone(h.Events())}, nil
}

// Hand returns the hand being played, for LegalActions and views. Apply
// through the Recorder, not the hand, or the events are lost.
func (r *Recorder) Hand() *engine.Hand { return r.hand }

// Apply applies a to the hand and records the events it caused.
func (r *Recorder) Apply(a engine.Action) ([]engine.Event, error) {
	evs, err := r.hand.Apply(a)
	if err == nil {
		r.events = append(r.events, evs...)
	}
	return evs, err
}

// History exports the hand as played so far (see Export).
func (r *Recorder) History() (*History, error) {
	return Export(r.setup, r.events, r.hand)
}

// Export writes a hand played through the engine as PHH. events are all the
// hand's events in order (those of NewHand, then those of every Apply); hand
// gives the configuration and the stacks after the last event, which become
// finishing_stacks. Players are listed from the first seat left of the
// button, which puts the small blind first in button games (the big blind
// heads-up) and the dealer's left first in stud, as PHH wants.
//
// The PHH forced-bet fields are per position: a dead small blind is dead
// money and is written as an ante, which PHH counts as dead money too; a
// small blind that nobody posts (its seat empty) leaves the big blind alone
// in the vector. A big blind posted live out of position — a returning
// player's (TP-15), a new player's on the button (TP-16) or at once
// (TP-13) — cannot be a blind in PHH, whose action starts after the
// largest blind, so it is written where its chips go: into the poster's
// first action (a check is then a call of it, a call or raise is to the
// same total), or, where the poster folds, is killed or is all in from the
// post and never acts, as the poster's ante; the action carries a comment
// naming the rule. A hand with such a post or with an ante posted short is
// replayed before it is returned and refused with ErrUnsupported where the
// file would replay to other stacks than the table's (see the end of
// Export).
// Floor actions have no PHH notation: a killed
// hand is written as a fold with a commentary naming the rule, and a hand
// shown on request (TP-65) as a show.
func Export(setup engine.Setup, events []engine.Event, hand *engine.Hand) (*History, error) {
	cfg := hand.Config()
	// Physical cards: the hole cards as they came to be known; those never
	// seen are written "??".
	events = engine.Dealt(events, hand)
	variant, err := variantOf(cfg.Game, cfg.Structure)
	if err != nil {
		return nil, err
	}
	// PHH order: seats clockwise from the first left of the button.
	seats := hand.Seats()
	slices.Sort(seats)
	start := 0
	for i, s := range seats {
		if s > setup.Button {
			start = i
			break
		}
	}
	order := append(slices.Clone(seats[start:]), seats[:start]...)
	n := len(order)
	if n == 2 && !cfg.Game.IsStud() && postedBy(events, order[0], engine.PostSmallBlind) {
		// With the button seat empty the engine's heads-up small blind is
		// the first seat left of it and acts first after the flop; PHH
		// heads-up has the small blind on the button, last after the flop.
		return nil, fmt.Errorf("heads-up with the small blind off the button: %w", ErrUnsupported)
	}
	player := map[int]int{} // seat → 1-based PHH player
	for i, s := range order {
		player[s] = i + 1
	}
	h := &History{Variant: variant, Antes: make([]Number, n), StartingStacks: make([]Number, n),
		Actions: []Action{}, Players: make([]string, n), Seats: make([]int64, n),
		FinishingStacks: make([]Number, n), Winnings: make([]Number, n)}
	k := cfg.Stakes
	for _, p := range setup.Players {
		i := player[p.Seat] - 1
		h.StartingStacks[i] = Int(p.Stack)
		h.Players[i] = p.ID
		h.Seats[i] = int64(p.Seat) + 1 // PHH seats count from 1
	}
	antes := make([]int64, n)
	blinds := make([]int64, n)
	live, err := exportPosts(events, player, cfg, antes, blinds)
	if err != nil {
		return nil, err
	}
	notes := placeLivePosts(events, player, live, antes)
	if n == 2 { // the specification reverses forced bets heads-up
		antes[0], antes[1] = antes[1], antes[0]
		blinds[0], blinds[1] = blinds[1], blinds[0]
	}
	for i := range n {
		h.Antes[i] = Int(antes[i])
	}
	ptr := func(v int64) *Number { x := Int(v); return &x }
	if cfg.Game.IsStud() {
		h.BringIn = ptr(k.BringIn)
	} else {
		h.BlindsOrStraddles = make([]Number, n)
		for i := range n {
			h.BlindsOrStraddles[i] = Int(blinds[i])
		}
	}
	if cfg.Structure == engine.FixedLimit {
		h.SmallBet, h.BigBet = ptr(k.SmallBet), ptr(k.BigBet)
	} else {
		mb := k.BigBlind
		if cfg.Profile.MinBet == engine.MinBetAnte && k.Ante > 0 {
			mb = k.Ante
		}
		h.MinBet = ptr(mb)
	}
	if cu := k.ChipUnit; cu > 1 {
		// Odd chips go by the table's smallest chip (TP-73): without it a
		// split pot replays to other stacks than the table paid.
		h.Extra = map[string]any{ChipUnitField: cu}
	}
	h.Actions = exportActions(events, player)
	annotate(h.Actions, notes)
	var won = make([]int64, n)
	for _, e := range events {
		if e.Kind == engine.EvAward {
			won[player[e.Seat]-1] += e.Amount
		}
	}
	for i, s := range order {
		h.FinishingStacks[i] = Int(hand.Stack(s))
		h.Winnings[i] = Int(won[i])
	}
	if !hand.Done() {
		h.Winnings = nil // PHH winnings are for a finished hand
	}
	// PHH's antes are main-pot dead money, as a dead small blind is at the
	// table (TP-44), but a table's ante is its poster's contribution: a
	// player all in for less than the ante wins only its share there, and
	// the whole of the antes in PHH. A live big blind written into its
	// poster's first action is not in the pot yet when the players before
	// them act, which a pot-limit raise can see; one written as an ante is
	// dead money rather than the poster's contribution. Where the readings
	// part the file would not replay to the hand's stacks: refuse it.
	var why string
	switch {
	case len(live) > 0:
		why = "a big blind posted live out of position, which PHH can write only into its poster's first action or as an ante"
	case shortAnte(events):
		why = "an ante posted short, which PHH would count as dead money"
	}
	if why != "" {
		stacks, err := ReplayHistory(h)
		if err == nil && numberList(stacks) != numberList(h.FinishingStacks) {
			err = fmt.Errorf("replays to %s, the table's stacks are %s", numberList(stacks), numberList(h.FinishingStacks))
		}
		if err != nil {
			return nil, fmt.Errorf("%s (%v): %w", why, err, ErrUnsupported)
		}
	}
	return h, nil
}

// placeLivePosts decides where each big blind posted live out of position
// (live, by 0-based player) goes in PHH: into the poster's first action
// when they check, call or raise, otherwise into their ante. It returns
// the comment for that action of each poster (1-based player).
func placeLivePosts(events []engine.Event, player map[int]int, live map[int]int64, antes []int64) map[int]string {
	notes := map[int]string{}
	for i, amount := range live {
		seat, rule := -1, "TP-13"
		for s, p := range player {
			if p == i+1 {
				seat = s
			}
		}
		acted := false
		for _, e := range events {
			if e.Seat != seat {
				continue
			}
			if e.Kind == engine.EvPost && e.Post.Live() && e.Rule != "" {
				rule = e.Rule
			}
			if kind := e.Kind; kind == engine.EvFold || kind == engine.EvKill || kind == engine.EvCheck ||
				kind == engine.EvCall || kind == engine.EvBet || kind == engine.EvRaise {
				acted = kind != engine.EvFold && kind != engine.EvKill
				break
			}
		}
		note := fmt.Sprintf("big blind %d posted live out of position (%s) is in this action", amount, rule)
		if !acted {
			antes[i] += amount
			note = fmt.Sprintf("big blind %d posted live out of position (%s) is written as the ante", amount, rule)
		}
		notes[i+1] = note
	}
	return notes
}

// annotate adds notes (by 1-based player) as the comment of each player's
// first fold, check, call, bet or raise.
func annotate(actions []Action, notes map[int]string) {
	for i := range actions {
		a := &actions[i]
		note, ok := notes[a.Player]
		if !ok || (a.Kind != Fold && a.Kind != CheckCall && a.Kind != CompleteBetRaise) {
			continue
		}
		if a.HasComment {
			note = a.Comment + "; " + note
		}
		a.Comment, a.HasComment = note, true
		delete(notes, a.Player)
	}
}

// exportPosts fills the per-player (1-based player map) antes and blinds
// from the post events, refusing live posts PHH cannot place. It returns
// the big blinds posted live out of position (TP-13, TP-15, TP-16) by
// 0-based player, which are in neither (see placeLivePosts).
func exportPosts(events []engine.Event, player map[int]int, cfg engine.Config, antes, blinds []int64) (map[int]int64, error) {
	n := len(antes)
	k := cfg.Stakes
	ref := -1 // the player the engine started pre-flop action after
	live := map[int]int64{}
	for _, e := range events {
		if e.Kind != engine.EvPost {
			continue
		}
		i := player[e.Seat] - 1
		amount := e.Amount
		if e.Post == engine.PostMissedBigBlind || e.Post == engine.PostNewPlayerBigBlind {
			if e.AllIn && n > 2 && amount < k.BigBlind {
				// All in from a post short of the big blind: a live blind
				// smaller than the big blind, which PHH's vector holds
				// without moving where the action starts (after the
				// largest). As an ante it would be dead money.
				blinds[i] += amount
				continue
			}
			live[i] += amount // all in from the post: what it had
			continue
		}
		if e.AllIn {
			amount = statedPost(e, k)
		}
		want := -1 // the player PHH expects to post this blind
		switch e.Post {
		case engine.PostAnte, engine.PostBigBlindAnte, engine.PostDeadSmallBlind:
			antes[i] += amount
			continue
		case engine.PostSmallBlind:
			want = 0
			if n == 2 {
				want = 1
			}
		case engine.PostBigBlind:
			want = 1
			if n == 2 {
				want = 0
			}
			if ref < 0 {
				ref = i
			}
		case engine.PostStraddle:
			want = 2
			ref = i
		}
		if i != want && n == 2 {
			return nil, fmt.Errorf("%s posted by player %d of %d: PHH places it by position: %w", e.Post, i+1, n, ErrUnsupported)
		}
		blinds[i] += amount
	}
	if n == 2 {
		return live, nil
	}
	// With three or more players the blinds may sit anywhere PHH's vector
	// can say, so long as a replay starts pre-flop action after the same
	// player as the engine did (after its big blind or straddle): a dead
	// small blind (the seat left of the button empty, the big blind first
	// in PHH order) replays as one blind.
	raw := make([]Number, n)
	for j, b := range blinds {
		raw[j] = Int(b)
	}
	if ref >= 0 && refPlayer(raw) != ref {
		return nil, fmt.Errorf("blinds %s: PHH starts the action after player %d, the table started it after player %d: %w",
			numberList(raw), refPlayer(raw)+1, ref+1, ErrUnsupported)
	}
	return live, nil
}

// statedPost is the forced bet a post all in for less states: a short
// stack posts what it has (G-31); PHH states the forced bet and caps it
// by the stack itself.
func statedPost(e engine.Event, k engine.Stakes) int64 {
	amount := e.Amount
	switch e.Post {
	case engine.PostAnte:
		amount = k.Ante
	case engine.PostBigBlindAnte:
		amount = k.BigBlindAnte
	case engine.PostSmallBlind, engine.PostDeadSmallBlind:
		amount = k.SmallBlind
	case engine.PostBigBlind:
		amount = k.BigBlind
	case engine.PostStraddle:
		amount = 2 * k.BigBlind
	}
	return max(amount, e.Amount)
}

// exportActions turns the events into action notations.
func exportActions(events []engine.Event, player map[int]int) []Action {
	var out []Action
	// Hole cards are dealt card by card; PHH lists each player's cards of
	// one deal together, in the order the players were first dealt to.
	var pending []int
	var street engine.Street
	held := map[int][]cards.Card{}
	flush := func() {
		for _, p := range pending {
			out = append(out, Action{Kind: DealHole, Player: p, Cards: held[p]})
		}
		pending, held = pending[:0], map[int][]cards.Card{}
	}
	shown := map[int]bool{}
	for i := range events {
		e := &events[i]
		p := player[e.Seat]
		switch e.Kind {
		case engine.EvDealHole, engine.EvDealUp:
			// The first stud deal's down cards carry the street the hand
			// starts in (preflop) and its up card third street: one deal.
			st := max(e.Street, engine.Third)
			if len(pending) > 0 && st != street {
				flush() // streets dealt out one after another (all-in)
			}
			street = st
			if _, ok := held[p]; !ok {
				pending = append(pending, p)
			}
			held[p] = append(held[p], e.CardList()...)
			continue
		case engine.EvBurn, engine.EvPost, engine.EvHoleEntry:
			continue
		}
		flush()
		switch e.Kind {
		case engine.EvDealBoard:
			out = append(out, Action{Kind: DealBoard, Cards: slices.Clone(e.CardList())})
		case engine.EvFold:
			out = append(out, Action{Kind: Fold, Player: p})
		case engine.EvCheck, engine.EvCall:
			out = append(out, Action{Kind: CheckCall, Player: p})
		case engine.EvBet, engine.EvRaise, engine.EvComplete:
			out = append(out, Action{Kind: CompleteBetRaise, Player: p, Amount: Int(e.Amount)})
		case engine.EvBringIn:
			out = append(out, Action{Kind: BringIn, Player: p})
		case engine.EvShow, engine.EvExpose:
			if !shown[p] {
				shown[p] = true
				out = append(out, Action{Kind: ShowMuck, Player: p, Cards: slices.Clone(e.CardList())})
			}
		case engine.EvMuck:
			if !shown[p] {
				shown[p] = true
				out = append(out, Action{Kind: ShowMuck, Player: p})
			}
		case engine.EvKill:
			out = append(out, Action{Kind: Fold, Player: p, Comment: "hand killed " + e.Rule, HasComment: true})
		}
	}
	flush()
	return out
}

// shortAnte reports whether an ante was posted all in for less than the
// ante (a player with fewer chips than the ante).
func shortAnte(events []engine.Event) bool {
	return slices.ContainsFunc(events, func(e engine.Event) bool { return e.Kind == engine.EvPost && e.Post == engine.PostAnte && e.AllIn })
}

// postedBy reports whether seat (any seat for -1) made a post of the kind.
func postedBy(events []engine.Event, seat int, kind engine.PostKind) bool {
	return slices.ContainsFunc(events, func(e engine.Event) bool {
		return e.Kind == engine.EvPost && (e.Seat == seat || seat < 0) && e.Post == kind
	})
}
