package phh

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// ErrUnsupported is returned (wrapped) for a valid PHH hand the engine does
// not deal: a variant the room does not spread (short deck, draw games,
// badugi), or forced bets it cannot post.
var ErrUnsupported = errors.New("not supported by the engine")

// infStack stands for an unknown (inf) starting stack, in engine chips.
const infStack = int64(1) << 50

// gameOf maps a PHH variant code to the engine's game and structure.
func gameOf(variant string) (engine.Game, engine.Structure, error) {
	switch variant {
	case NoLimitHoldem:
		return engine.Holdem, engine.NoLimit, nil
	case FixedLimitHoldem:
		return engine.Holdem, engine.FixedLimit, nil
	case PotLimitOmaha:
		return engine.Omaha, engine.PotLimit, nil
	case FixedLimitOmahaHiLo:
		return engine.OmahaHiLo, engine.FixedLimit, nil
	case FixedLimitStud:
		return engine.Stud, engine.FixedLimit, nil
	case FixedLimitStudHiLo:
		return engine.StudHiLo, engine.FixedLimit, nil
	case FixedLimitRazz:
		return engine.Razz, engine.FixedLimit, nil
	}
	return 0, 0, fmt.Errorf("variant %s: %w", variant, ErrUnsupported)
}

// variantOf is gameOf reversed: the PHH code of an engine game. PL/NL
// hold'em other than NT, FL Omaha and PL Omaha hi/lo have no PHH code.
func variantOf(g engine.Game, s engine.Structure) (string, error) {
	for _, v := range []string{NoLimitHoldem, FixedLimitHoldem, PotLimitOmaha, FixedLimitOmahaHiLo, FixedLimitStud, FixedLimitStudHiLo, FixedLimitRazz} {
		if gg, ss, _ := gameOf(v); gg == g && ss == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("%s %s has no PHH variant code: %w", s, g, ErrUnsupported)
}

// maxDecimals is the most decimal places an amount may have: the replayer
// works in whole engine chips of 10^-maxDecimals units at the finest.
const maxDecimals = 9

// decimal returns the exact decimal a float amount was written as: the
// shortest decimal that reads back as the same float64, which is the text
// of the file for any amount of up to 15 significant digits. Its integer
// and fraction digits are returned without sign or point.
func decimal(f float64) (whole, frac string) {
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	whole, frac, _ = strings.Cut(s, ".")
	return whole, frac
}

// scaleOf returns the smallest power of ten that makes every amount of h an
// integer, so that float amounts (cash games in dollars and cents) become
// whole engine chips exactly. An amount with more than maxDecimals decimal
// places is refused: the replayer never rounds (a rounded amount would
// create or destroy chips).
func scaleOf(h *History) (int64, error) {
	var all []Number
	all = append(all, h.Antes...)
	all = append(all, h.BlindsOrStraddles...)
	all = append(all, h.StartingStacks...)
	for _, p := range []*Number{h.BringIn, h.SmallBet, h.BigBet, h.MinBet} {
		if p != nil {
			all = append(all, *p)
		}
	}
	for _, a := range h.Actions {
		if a.Kind == CompleteBetRaise {
			all = append(all, a.Amount)
		}
	}
	decimals := 0
	for _, n := range all {
		if !n.IsFloat || n.IsInf() {
			continue
		}
		if _, frac := decimal(n.Float); len(frac) > decimals {
			if len(frac) > maxDecimals {
				return 0, fmt.Errorf("amount %s has %d decimal places, at most %d can be replayed exactly: %w",
					n, len(frac), maxDecimals, ErrUnsupported)
			}
			decimals = len(frac)
		}
	}
	scale := int64(1)
	for range decimals {
		scale *= 10
	}
	return scale, nil
}

// chips converts a PHH amount to engine chips at the given scale, exactly:
// an amount that is not a whole number of chips at that scale, or that is
// too large, is an error, never rounded.
func chips(n Number, scale int64) (int64, error) {
	if n.IsInf() {
		return infStack, nil
	}
	tooLarge := fmt.Errorf("amount %s too large: %w", n, ErrUnsupported)
	if !n.IsFloat {
		if n.Int > infStack/scale || n.Int < -infStack/scale {
			return 0, tooLarge
		}
		return n.Int * scale, nil
	}
	if math.IsInf(n.Float, 0) || math.IsNaN(n.Float) {
		return 0, fmt.Errorf("amount %s: %w", n, ErrUnsupported)
	}
	places := len(strconv.FormatInt(scale, 10)) - 1
	whole, frac := decimal(n.Float)
	if len(frac) > places {
		return 0, fmt.Errorf("amount %s is not a whole number of 1/%d units: %w", n, scale, ErrUnsupported)
	}
	v, err := strconv.ParseInt(whole+frac+strings.Repeat("0", places-len(frac)), 10, 64)
	if err != nil || v > infStack {
		return 0, tooLarge
	}
	if n.Float < 0 {
		v = -v
	}
	return v, nil
}

// fromChips converts engine chips back to a PHH amount: the float nearest
// to the exact decimal c/scale (the same float the file's text reads as).
func fromChips(c int64, scale int64, inf bool) Number {
	if inf {
		return Float(math.Inf(1))
	}
	if scale == 1 {
		return Int(c)
	}
	places := len(strconv.FormatInt(scale, 10)) - 1
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	digits := fmt.Sprintf("%0*d", places+1, c)
	f, _ := strconv.ParseFloat(sign+digits[:len(digits)-places]+"."+digits[len(digits)-places:], 64)
	return Float(f)
}

// effective returns the per-player values of a forced-bet array: reversed
// heads-up, as the specification says ("the antes, blinds, and straddles are
// reversed for heads-up situations"), so that the big blind falls on p1.
func effective(ns []Number) []Number {
	if len(ns) != 2 {
		return ns
	}
	return []Number{ns[1], ns[0]}
}

// setup builds the engine configuration and setup for h. Player i (p(i+1))
// sits in seat i and the button is the last player's seat, so the engine's
// "first left of the button" is p1 as in PHH: the small blind in button
// games (the big blind heads-up, where the button posts the small blind,
// G-04) and the dealer's left in stud. The deck is left empty (see deck).
func setup(h *History, scale int64) (engine.Config, engine.Setup, error) {
	var cfg engine.Config
	var st engine.Setup
	game, structure, err := gameOf(h.Variant)
	if err != nil {
		return cfg, st, err
	}
	n := h.NumPlayers()
	if n > 10 {
		return cfg, st, fmt.Errorf("%d players: %w", n, ErrUnsupported)
	}
	// PHH's antes are dead money in the main pot, as PokerKit builds its
	// pots: a dead small blind exported as an ante (TP-15, TP-18) or an
	// ante posted short must not make a pot of its own.
	cfg = engine.Config{Game: game, Structure: structure, Mode: engine.Digital, Profile: engine.DefaultProfile(), DeadAntes: true}
	conv := func(p *Number) (int64, error) {
		if p == nil {
			return 0, nil
		}
		return chips(*p, scale)
	}
	k := &cfg.Stakes
	if k.BringIn, err = conv(h.BringIn); err != nil {
		return cfg, st, err
	}
	if k.SmallBet, err = conv(h.SmallBet); err != nil {
		return cfg, st, err
	}
	if k.BigBet, err = conv(h.BigBet); err != nil {
		return cfg, st, err
	}
	if k.ChipUnit, err = chipUnit(h, scale); err != nil {
		return cfg, st, err
	}
	st.Button = n - 1
	for i, s := range h.StartingStacks {
		c, err := chips(s, scale)
		if err != nil {
			return cfg, st, err
		}
		id := "p" + strconv.Itoa(i+1)
		if i < len(h.Players) && h.Players[i] != "" {
			id = h.Players[i]
		}
		st.Players = append(st.Players, engine.Player{Seat: i, ID: id, Stack: c})
	}
	st.Posts = []engine.Post{} // explicit: no posts unless the file has them
	antes := effective(h.Antes)
	var nonzero []int
	for i, a := range antes {
		if a.Value() > 0 {
			nonzero = append(nonzero, i)
		}
	}
	bbPlayer := 1 % n
	if n == 2 {
		bbPlayer = 0
	}
	var bba *engine.Post
	for _, i := range nonzero {
		c, err := chips(antes[i], scale)
		if err != nil {
			return cfg, st, err
		}
		if !game.IsStud() && len(nonzero) == 1 && i == bbPlayer {
			// A big-blind ante is posted after the blind, which comes first
			// when the stack is short (as the engine posts it).
			k.BigBlindAnte = c
			bba = &engine.Post{Seat: i, Kind: engine.PostBigBlindAnte, Amount: c}
			continue
		}
		k.Ante = max(k.Ante, c)
		st.Posts = append(st.Posts, engine.Post{Seat: i, Kind: engine.PostAnte, Amount: c})
	}
	if !game.IsStud() {
		// Post in the order of the raw array: small blind, big blind, then
		// straddles; heads-up the raw index 0 (small blind) is p2's.
		raw := h.BlindsOrStraddles
		var posts []engine.Post
		for j, b := range raw {
			if b.Value() == 0 {
				continue
			}
			c, err := chips(b, scale)
			if err != nil {
				return cfg, st, err
			}
			seat := j
			if n == 2 {
				seat = 1 - j
			}
			posts = append(posts, engine.Post{Seat: seat, Kind: blindKind(j), Amount: c})
		}
		standard, err := standardVector(raw, structure, h.MinBet, scale)
		if err != nil {
			return cfg, st, err
		}
		if standard {
			for _, p := range posts {
				switch p.Kind {
				case engine.PostSmallBlind:
					k.SmallBlind = p.Amount
				case engine.PostBigBlind:
					k.BigBlind = p.Amount
				}
			}
		} else if len(posts) > 0 {
			// Any other vector PHH allows (one blind, no small blind, a
			// double straddle, blinds of any size): the player with the
			// largest blind or straddle, the later one on a tie, is the one
			// pre-flop action starts after, as in PokerKit. The engine
			// starts after its big blind, so that player posts as the big
			// blind and the others as live small blinds; the engine's own
			// straddle rules (TP-20) are the room's, not the file's.
			ref := refPlayer(effective(raw))
			for i := range posts {
				posts[i].Kind = engine.PostSmallBlind
				if posts[i].Seat == ref {
					posts[i].Kind = engine.PostBigBlind
					k.BigBlind = posts[i].Amount
				}
			}
		}
		st.Posts = append(st.Posts, posts...)
		if bba != nil {
			st.Posts = append(st.Posts, *bba)
		}
		if structure != engine.FixedLimit {
			// The engine takes the NL/PL minimum bet from the big blind
			// (TP-21); PHH states it as min_bet.
			mb, err := conv(h.MinBet)
			if err != nil {
				return cfg, st, err
			}
			k.BigBlind = mb
		}
	}
	return cfg, st, nil
}

// blindKind is the post at index j of a standard blinds_or_straddles array.
func blindKind(j int) engine.PostKind {
	switch j {
	case 0:
		return engine.PostSmallBlind
	case 1:
		return engine.PostBigBlind
	}
	return engine.PostStraddle
}

// standardBlinds reports whether raw is a vector the engine posts as its
// own blinds: a big blind, a small blind no larger or none, and at most one
// straddle, twice the big blind, right after it (TP-20).
func standardBlinds(raw []Number) bool {
	v := func(j int) float64 {
		if j < len(raw) {
			return raw[j].Value()
		}
		return 0
	}
	if v(1) <= 0 || v(0) > v(1) {
		return false
	}
	for j := 3; j < len(raw); j++ {
		if v(j) != 0 {
			return false
		}
	}
	return v(2) == 0 || v(2) == 2*v(1) && len(raw) > 2
}

// ChipUnitField is the user-defined PHH field (the specification's
// underscore prefix) that carries the table's smallest chip (TP-31): a
// pot that does not divide evenly is split to it and the odd chips go by
// TP-73, so a replay needs it to pay what the table paid. Files without
// it split to the file's smallest unit.
const ChipUnitField = "_min_chip_unit"

// chipUnit reads the file's smallest chip (ChipUnitField) in the replay's
// units; 0 (the engine's default of one unit) when the file has none.
func chipUnit(h *History, scale int64) (int64, error) {
	v, ok := h.Extra[ChipUnitField]
	if !ok {
		return 0, nil
	}
	var n Number
	switch x := v.(type) {
	case int64:
		n = Int(x)
	case float64:
		n = Float(x)
	default:
		return 0, fmt.Errorf("%s = %v: want a number", ChipUnitField, v)
	}
	c, err := chips(n, scale)
	if err != nil {
		return 0, err
	}
	if c <= 0 {
		return 0, fmt.Errorf("%s = %v: want a positive amount", ChipUnitField, v)
	}
	return c, nil
}

// standardVector reports whether raw is read as small blind, big blind and
// straddle (standardBlinds) in a file whose min_bet, when it has one, is
// that big blind. [0, 5, 10] is two readings: no small blind, a big blind
// of 5 and a straddle of 10 — or, with min_bet 10, the small blind 5 and
// the big blind 10 one place on, the first player posting nothing, as
// when a new player posts on the button (TP-16) and the blinds move on
// past the seat left of it. The min_bet decides: a vector whose big blind
// is not the minimum bet is read as any other vector (the largest blind
// is the one action starts after, the minimum bet min_bet).
func standardVector(raw []Number, structure engine.Structure, minBet *Number, scale int64) (bool, error) {
	if !standardBlinds(raw) || structure == engine.FixedLimit || minBet == nil {
		return standardBlinds(raw), nil
	}
	bb, err := chips(raw[1], scale)
	if err != nil {
		return false, err
	}
	mb, err := chips(*minBet, scale)
	if err != nil {
		return false, err
	}
	return bb == mb, nil
}

// refPlayer returns the 0-based player pre-flop action starts after for
// per-player blinds (effective: already reversed heads-up), or -1 when
// nobody posts one: for a standard vector the big blind or the straddle
// after it, otherwise the player with the largest blind or straddle, the
// later one on a tie, as PokerKit does.
func refPlayer(blinds []Number) int {
	ref := -1
	for i, b := range blinds {
		if b.Value() > 0 && (ref < 0 || b.Value() >= blinds[ref].Value()) {
			ref = i
		}
	}
	return ref
}

// deck builds the deck that makes the engine deal exactly the cards of the
// history. The engine deals the first round card by card round-robin from
// p1 (TP-09), later stud streets one card to each live player from p1, and
// board cards in order; PHH lists the first round per player. Unknown cards
// ("??") are filled first with the cards a later showdown reveals, then with
// cards the history never names; the rest of the deck follows, so the engine
// always has enough cards. The fill order matters only for an unknown stud
// up card, which decides the bring-in: in stud it is filled from the aces
// down and in razz from the aces up, so an unknown card never brings in
// (the history says who did).
func deck(h *History, game engine.Game) (cards.Deck, error) {
	holeCards := game.HoleCards()
	n := h.NumPlayers()
	// Every card dealt to each player, in order, with showdown reveals.
	held := make([][]cards.Card, n)
	type deal struct {
		player int // -1 for the board
		from   int // index into held[player] (or board)
		count  int
		action int
		seg    int // player actions before it: deals with equal seg are one street
	}
	var deals []deal
	var board []cards.Card
	seg := 0
	for i, a := range h.Actions {
		switch a.Kind {
		case DealHole:
			p := a.Player - 1
			deals = append(deals, deal{player: p, from: len(held[p]), count: len(a.Cards), action: i, seg: seg})
			held[p] = append(held[p], a.Cards...)
		case DealBoard:
			deals = append(deals, deal{player: -1, from: len(board), count: len(a.Cards), action: i, seg: seg})
			board = append(board, a.Cards...)
		case BringIn, CompleteBetRaise, CheckCall, Fold, StandPatDiscard:
			seg++
		case ShowMuck:
			seg++
			p := a.Player - 1
			for j, c := range a.Cards {
				if j < len(held[p]) && c != cards.Unknown {
					held[p][j] = c
				}
			}
		}
	}
	// The first round: the first deal to each player, before any board card.
	first := make([]bool, n)
	var order []cards.Card
	firstDone := 0
	rest := deals[:0:0]
	for _, d := range deals {
		if d.player >= 0 && !first[d.player] && firstDone < n {
			if d.count != holeCards {
				return nil, &ActionError{Index: d.action, Action: h.Actions[d.action].String(),
					Err: fmt.Errorf("deals %d cards, the game deals %d first", d.count, holeCards)}
			}
			first[d.player] = true
			firstDone++
			continue
		}
		rest = append(rest, d)
	}
	if firstDone > 0 && firstDone < n {
		for p := range first {
			if !first[p] {
				return nil, fmt.Errorf("%w: p%d is never dealt hole cards", ErrFormat, p+1)
			}
		}
	}
	if firstDone == n {
		for r := range holeCards {
			for p := range n {
				order = append(order, held[p][r])
			}
		}
	}
	// Later deals: a run of consecutive hole deals is one stud street, which
	// the engine deals from p1 on.
	for i := 0; i < len(rest); {
		d := rest[i]
		if d.player < 0 {
			order = append(order, board[d.from:d.from+d.count]...)
			i++
			continue
		}
		// A street ends at a player action, a board card, or a second deal
		// to the same player (streets dealt out after an all-in).
		j := i
		inStreet := map[int]bool{}
		for j < len(rest) && rest[j].player >= 0 && rest[j].seg == d.seg && !inStreet[rest[j].player] {
			inStreet[rest[j].player] = true
			j++
		}
		street := slices.Clone(rest[i:j])
		slices.SortStableFunc(street, func(a, b deal) int { return a.player - b.player })
		for _, s := range street {
			order = append(order, held[s.player][s.from:s.from+s.count]...)
		}
		i = j
	}
	var used [cards.NumCards]bool
	for _, c := range order {
		if c != cards.Unknown {
			used[c] = true
		}
	}
	var spare []cards.Card
	for c := cards.Card(0); c < cards.NumCards; c++ {
		if !used[c] {
			spare = append(spare, c)
		}
	}
	fill := slices.Clone(spare)
	switch game {
	case engine.Stud, engine.StudHiLo:
		slices.Reverse(fill) // As, Ah, Ad, Ac, Ks, ...
	case engine.Razz:
		// Aces first (low in razz), then deuces up.
		slices.SortStableFunc(fill, func(a, b cards.Card) int {
			return razzRank(a) - razzRank(b)
		})
	}
	for i, c := range order {
		if c == cards.Unknown {
			if len(fill) == 0 {
				return nil, fmt.Errorf("%w: more cards dealt than the deck holds", ErrFormat)
			}
			order[i] = fill[0]
			fill = fill[1:]
		}
	}
	used = [cards.NumCards]bool{}
	for _, c := range order {
		used[c] = true
	}
	spare = spare[:0]
	for c := cards.Card(0); c < cards.NumCards; c++ {
		if !used[c] {
			spare = append(spare, c)
		}
	}
	return append(cards.Deck(order), spare...), nil
}

// razzRank orders ranks for razz: the ace lowest.
func razzRank(c cards.Card) int {
	if c.Rank() == cards.Ace {
		return 1
	}
	return int(c.Rank())
}
