package engine

import (
	"cmp"
	"errors"
	"slices"
	"strconv"

	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/refusal"
)

// Street is a betting round (or the showdown).
type Street uint8

// Streets. Flop games use Preflop…River, stud games Third…Seventh.
const (
	Preflop Street = iota
	Flop
	Turn
	River
	Third
	Fourth
	Fifth
	Sixth
	Seventh
)

var streetNames = [...]string{"preflop", "flop", "turn", "river", "third", "fourth", "fifth", "sixth", "seventh"}

// String returns the street's name.
func (s Street) String() string { return nameOf(streetNames[:], s, "street?") }

// Phase is where the hand is.
type Phase uint8

// Phases.
const (
	PhaseBetting Phase = iota
	PhaseShowdown
	PhaseDone
)

// seat is one player's state in the hand. Fields are exported for JSON only.
type seat struct {
	Seat  int    `json:"seat"`
	ID    string `json:"id"`
	Start int64  `json:"start"`
	Stack int64  `json:"stack"`
	Bet   int64  `json:"bet"`   // live bet this round
	Total int64  `json:"total"` // everything put in the pot
	// Dead is the part of Total posted as dead money that belongs to the
	// main pot and makes no contribution level of its own: a dead small
	// blind (TP-15, G-06) and a big-blind ante. Antes stay contributions,
	// so a player all in for less than the ante wins only its share
	// (unless Config.DeadAntes, the PHH replayer's reading).
	Dead       int64         `json:"dead,omitempty"`
	Hole       [7]cards.Card `json:"hole"`
	N          uint8         `json:"n"`  // cards held
	Up         uint8         `json:"up"` // bitmask of face-up cards (stud)
	Folded     bool          `json:"folded,omitempty"`
	AllIn      bool          `json:"all_in,omitempty"`
	Acted      bool          `json:"acted,omitempty"`
	ActedLevel int64         `json:"acted_level,omitempty"`
	ActedFull  int64         `json:"acted_full,omitempty"`
	NoAggr     bool          `json:"no_aggr,omitempty"` // TP-58 live without aggression
	// ExposePending: the dealer marked an exposure the floor has not yet
	// ruled on (TP-58); ExposedBy is the rule that exposed the hand.
	ExposePending bool   `json:"expose_pending,omitempty"`
	ExposedBy     string `json:"exposed_by,omitempty"`
	NoRaise       bool   `json:"no_raise,omitempty"` // TP-49 this round
	Killed        bool   `json:"killed,omitempty"`
	Absent        bool   `json:"absent,omitempty"`
	Exposed       bool   `json:"exposed,omitempty"` // revealed to all
	Shown         bool   `json:"shown,omitempty"`
	Mucked        bool   `json:"mucked,omitempty"`
	MuckSeq       int    `json:"muck_seq,omitempty"`
	AutoMucked    bool   `json:"auto_mucked,omitempty"` // TP-66
	Requestable   bool   `json:"requestable,omitempty"` // TP-65
	Decided       bool   `json:"decided,omitempty"`     // showdown decision made
	OOTFrom       int64  `json:"oot_from"`              // bet before an out-of-turn wager, -1 none
	Won           int64  `json:"won,omitempty"`
	Hi            uint32 `json:"hi,omitempty"` // showdown values
	Lo            uint32 `json:"lo,omitempty"`
	LoOK          bool   `json:"lo_ok,omitempty"`
}

// upCards appends p's face-up cards to dst.
func (p *seat) upCards(dst []cards.Card) []cards.Card {
	for i := uint8(0); i < p.N; i++ {
		if p.Up&(1<<i) != 0 {
			dst = append(dst, p.Hole[i])
		}
	}
	return dst
}

// undoFold lets the floor revive the fold just applied (TP-60).
type undoFold struct {
	Active     bool  `json:"active,omitempty"`
	Index      int   `json:"index,omitempty"`
	Acted      bool  `json:"acted,omitempty"`
	ActedLevel int64 `json:"acted_level,omitempty"`
	ActedFull  int64 `json:"acted_full,omitempty"`
}

// state is the whole serializable hand state.
type state struct {
	Button    int           `json:"button"`
	Seats     []seat        `json:"seats"`
	Deck      []cards.Card  `json:"deck"`
	Next      int           `json:"next"` // next deck position
	Board     [5]cards.Card `json:"board"`
	NBoard    int           `json:"n_board"`
	Burned    []cards.Card  `json:"burned,omitempty"`
	ForceBurn bool          `json:"force_burn,omitempty"` // TP-78
	NoBurn    bool          `json:"no_burn,omitempty"`    // TP-79
	Street    Street        `json:"street"`
	Phase     Phase         `json:"phase"`
	ToAct     int           `json:"to_act"` // seat index, -1 when nobody
	CurBet    int64         `json:"cur_bet"`
	MinRaise  int64         `json:"min_raise"`  // last full bet/raise increment (NL/PL)
	FullLevel int64         `json:"full_level"` // level of the last full bet (FL)
	Raises    int           `json:"raises"`     // full bets + raises this round (FL)
	NoCap     bool          `json:"no_cap,omitempty"`
	Unit      int64         `json:"unit"` // FL unit this round
	OpenPair  bool          `json:"open_pair,omitempty"`
	BringIn   bool          `json:"bring_in,omitempty"` // bring-in pending
	// BringInBy is the seat that brought in, plus one (0: nobody yet).
	BringInBy int         `json:"bring_in_by,omitempty"`
	RoundActs int         `json:"round_acts"`      // actions on this street (TP-78/79 window)
	LastAggr  int         `json:"last_aggr"`       // this round, -1 none
	FinalAggr int         `json:"final_aggr"`      // aggressor of the last betting round that closed
	HandAggr  int         `json:"hand_aggr"`       // last aggressor in the hand
	RefIndex  int         `json:"ref_index"`       // pre-flop: acts after this seat (BB or straddle)
	Order     []int       `json:"order,omitempty"` // showdown order
	ShowPos   int         `json:"show_pos"`
	MuckSeq   int         `json:"muck_seq"`
	Uncontest bool        `json:"uncontested,omitempty"`
	Pots      []PotResult `json:"pots,omitempty"`
	Undo      undoFold    `json:"undo"`
	// Physical cards (Config.Physical): what the hand waits for before it
	// goes on, the cards set aside by a premature deal (G-10), how many
	// cards have left the deck (stud's 7th street needs it).
	Await    await        `json:"await,omitzero"`
	SetAside []cards.Card `json:"set_aside,omitempty"`
	Dealt    int          `json:"dealt,omitempty"`
	// RunOut: betting is over; the streets are dealt to the end and the
	// showdown follows.
	RunOut bool `json:"run_out,omitempty"`
	// FirstActs and FirstPaid count the actions in turn on the first
	// betting round, and those that put chips in: substantial action
	// (G-32) ends the dealer's right to declare a misdeal.
	FirstActs int `json:"first_acts,omitempty"`
	FirstPaid int `json:"first_paid,omitempty"`
	// Misdealt: the hand was declared a misdeal (G-32) and is void.
	Misdealt bool `json:"misdealt,omitempty"`
	// Awards are the floor's decided pot awards (WinnerEntry).
	Awards []potAward `json:"awards,omitempty"`
}

// Hand is one poker hand. Build it with NewHand (or Reset an old one to
// reuse its memory); drive it with Apply. A Hand is not safe for concurrent use.
type Hand struct {
	cfg    Config
	s      state
	events []Event
	legal  []Legal
	buf    []cards.Card // scratch
	// opt caches options(optIdx) between LegalActions and Apply; any
	// successful state change clears optOK.
	opt    opts
	optIdx int
	optOK  bool
}

// cachedOptions returns options(i), computed once per state.
func (h *Hand) cachedOptions(i int) opts {
	if h.optOK && h.optIdx == i {
		return h.opt
	}
	h.opt, h.optIdx, h.optOK = h.options(i), i, true
	return h.opt
}

// NewHand validates cfg and setup, makes the forced posts and deals the
// first round. The events of the posts and the deal are in Events().
func NewHand(cfg Config, setup Setup) (*Hand, error) {
	h := &Hand{}
	if err := h.Reset(cfg, setup); err != nil {
		return nil, err
	}
	return h, nil
}

// Events returns the events of the last NewHand/Reset/Apply. The slice is
// reused by the next call.
func (h *Hand) Events() []Event { return h.events }

// Config returns the hand's configuration (with defaults filled in).
func (h *Hand) Config() Config { return h.cfg }

// Reset starts a new hand in h, reusing its memory (for pools and
// benchmarks). On error h is left unusable until the next successful Reset.
func (h *Hand) Reset(cfg Config, setup Setup) error {
	if err := normalize(&cfg, &setup); err != nil {
		return err
	}
	h.cfg = cfg
	h.optOK = false
	h.events = h.events[:0]
	st := &h.s
	seats := st.Seats[:0]
	deck := append(st.Deck[:0], setup.Deck...)
	burned := st.Burned[:0]
	order := st.Order[:0]
	pots := st.Pots[:0]
	*st = state{Seats: seats, Deck: deck, Burned: burned, Order: order, Pots: pots}
	st.Button = setup.Button
	st.ToAct, st.LastAggr, st.FinalAggr, st.HandAggr, st.RefIndex = -1, -1, -1, -1, -1
	for _, p := range setup.Players {
		st.Seats = append(st.Seats, seat{Seat: p.Seat, ID: p.ID, Start: p.Stack, Stack: p.Stack, Absent: p.Absent, OOTFrom: -1})
	}
	slices.SortFunc(st.Seats, func(a, b seat) int { return a.Seat - b.Seat })
	h.post(setup.Posts)
	h.dealFirst()
	if !st.Await.pending() { // a physical stud hand waits for its up cards
		h.startRound(true)
	}
	return nil
}

func normalize(cfg *Config, setup *Setup) error {
	if cfg.Game > Razz {
		return ruleErr("", refusal.BadConfig, "unknown game")
	}
	if cfg.Structure > FixedLimit {
		return ruleErr("", refusal.BadConfig, "unknown structure")
	}
	if cfg.Game.IsStud() && cfg.Structure != FixedLimit {
		return ruleErr("TP-27", refusal.BadConfig, "stud games are dealt fixed limit")
	}
	if cfg.Profile.Name == "" {
		cfg.Profile = DefaultProfile()
	}
	k := &cfg.Stakes
	k.ChipUnit = cmp.Or(k.ChipUnit, 1)
	if k.SmallBlind < 0 || k.BigBlind < 0 || k.Ante < 0 || k.BigBlindAnte < 0 || k.BringIn < 0 || k.SmallBet < 0 || k.BigBet < 0 || k.ChipUnit < 0 {
		return ruleErr("", refusal.BadConfig, "negative stake")
	}
	if cfg.Structure == FixedLimit {
		k.SmallBet = cmp.Or(k.SmallBet, k.BigBlind)
		k.BigBet = cmp.Or(k.BigBet, 2*k.SmallBet)
		if k.SmallBet <= 0 {
			return ruleErr("TP-27", refusal.BadConfig, "fixed limit needs a small bet")
		}
	}
	if cfg.Game.IsStud() {
		if k.BringIn <= 0 {
			return ruleErr("", refusal.BadConfig, "stud needs a bring-in (G-07)")
		}
	} else if cfg.Structure != FixedLimit && k.BigBlind <= 0 && (cfg.Profile.MinBet != MinBetAnte || k.Ante <= 0) {
		return ruleErr("TP-21", refusal.BadConfig, "no minimum bet: set the big blind")
	}
	for _, v := range [...]int64{k.SmallBlind, k.BigBlind, k.Ante, k.BigBlindAnte, k.BringIn, k.SmallBet, k.BigBet} {
		if v%k.ChipUnit != 0 {
			return ruleErr("TP-31", refusal.BadConfig, "stakes must be multiples of the chip unit")
		}
	}
	n := len(setup.Players)
	maxPlayers := 10
	if cfg.Game.IsStud() {
		maxPlayers = 8
	}
	if n < 2 || n > maxPlayers {
		return rangeErr("", refusal.BadPlayerCount, "players in hand "+strconv.Itoa(n), 2, int64(maxPlayers))
	}
	var seen uint16
	for _, p := range setup.Players {
		if p.Seat < 0 || p.Seat > 9 {
			return ruleErr("", refusal.BadSetup, "seat out of range: "+strconv.Itoa(p.Seat))
		}
		if seen&(1<<p.Seat) != 0 {
			return ruleErr("", refusal.BadSetup, "duplicate seat: "+strconv.Itoa(p.Seat))
		}
		seen |= 1 << p.Seat
		if p.Stack <= 0 {
			return ruleErr("TP-19", refusal.BadSetup, "seat "+strconv.Itoa(p.Seat)+" has no chips")
		}
		if p.Absent && !cfg.Tournament {
			return ruleErr("TP-56", refusal.BadSetup, "cash tables do not deal absent players in")
		}
	}
	if setup.Button < 0 || setup.Button > 9 {
		return ruleErr("TP-09", refusal.BadSetup, "button out of range")
	}
	if cfg.Physical && cfg.Mode != Live {
		return ruleErr("", refusal.BadConfig, "physical cards are dealt at live tables")
	}
	if (cfg.HoleEntry || cfg.WinnerEntry) && !cfg.Physical {
		return ruleErr("", refusal.BadConfig, "hole card and winner entry are for physical cards")
	}
	if cfg.Physical {
		// The cards come from the table as they are dealt.
		setup.Deck = nil
		if err := checkPosts(*cfg, *setup, seen); err != nil {
			return err
		}
		return nil
	}
	if err := setup.Deck.Validate(); err != nil {
		reason := refusal.BadCard
		if errors.Is(err, cards.ErrDuplicateCard) {
			reason = refusal.DuplicateCard
		}
		return ruleErr("", reason, "deck: "+err.Error())
	}
	need := cardsNeeded(*cfg, n)
	if len(setup.Deck) < need {
		return rangeErr("", refusal.DeckTooShort, "deck too short", int64(need), 52)
	}
	if err := checkPosts(*cfg, *setup, seen); err != nil {
		return err
	}
	return nil
}

// checkPosts checks the forced bets of setup; seen has bit s set for each
// seat s dealt in.
func checkPosts(cfg Config, setup Setup, seen uint16) *refusal.Error {
	k := cfg.Stakes
	if setup.Posts == nil {
		return nil
	}
	var bbSeat = -1
	for _, p := range setup.Posts {
		if p.Seat < 0 || p.Seat > 9 || seen&(1<<p.Seat) == 0 {
			return ruleErr("", refusal.SeatNotInHand, "post by a seat not in the hand: "+strconv.Itoa(p.Seat))
		}
		if p.Amount < 0 {
			return ruleErr("", refusal.NegativeAmount, "negative post")
		}
		if p.Amount%k.ChipUnit != 0 {
			return ruleErr("TP-31", refusal.NotChipMultiple, "post not a multiple of the chip unit")
		}
		if p.Kind > PostBigBlindAnte {
			return ruleErr("", refusal.BadSetup, "unknown post kind")
		}
		if cfg.Game.IsStud() && p.Kind != PostAnte {
			return ruleErr("", refusal.BadSetup, "stud hands post antes only")
		}
		if p.Kind == PostBigBlind && bbSeat < 0 {
			bbSeat = p.Seat
		}
		if p.Kind == PostStraddle {
			if cfg.Tournament {
				return ruleErr("TP-20", refusal.StraddleNotAllowed, "no straddle on tournament tables")
			}
			if bbSeat < 0 || nextSeat(setup.Players, bbSeat) != p.Seat {
				return ruleErr("TP-20", refusal.StraddleNotAllowed, "only the seat after the big blind may straddle")
			}
			if p.Amount != 2*k.BigBlind {
				return rangeErr("TP-20", refusal.WrongAmount, "the straddle is twice the big blind", 2*k.BigBlind, 2*k.BigBlind)
			}
		}
	}
	return nil
}

// nextSeat returns the dealt-in seat clockwise after seat s.
func nextSeat(ps []Player, s int) int {
	best, first := -1, -1
	for _, p := range ps {
		if p.Seat > s && (best < 0 || p.Seat < best) {
			best = p.Seat
		}
		if first < 0 || p.Seat < first {
			first = p.Seat
		}
	}
	if best < 0 {
		return first
	}
	return best
}

func cardsNeeded(cfg Config, n int) int {
	if cfg.Game.IsStud() {
		// 3 + 4 streets; 7th street falls back to one community card if
		// the deck runs short, so 52 is always enough.
		need := 7 * n
		if need > 52 {
			need = 6*n + 1
		}
		return min(need, 52)
	}
	need := n*cfg.Game.HoleCards() + 5
	if cfg.Burn {
		need += 3
	}
	return need
}

// firstLeftOf returns the index of the first seat clockwise after seat
// number s (s need not be dealt in).
func (h *Hand) firstLeftOf(s int) int {
	for i := range h.s.Seats {
		if h.s.Seats[i].Seat > s {
			return i
		}
	}
	return 0
}

func (h *Hand) indexOf(s int) int {
	for i := range h.s.Seats {
		if h.s.Seats[i].Seat == s {
			return i
		}
	}
	return -1
}

func (h *Hand) next(i int) int {
	i++
	if i == len(h.s.Seats) {
		return 0
	}
	return i
}

func (h *Hand) emit(e Event) { h.events = append(h.events, e) }

// put moves amount (capped at the stack) from p's stack into the pot; live
// amounts also count as p's bet.
func (h *Hand) put(p *seat, amount int64, live bool) int64 {
	amount = min(amount, p.Stack)
	p.Stack -= amount
	p.Total += amount
	if live {
		p.Bet += amount
	}
	if p.Stack == 0 {
		p.AllIn = true
	}
	return amount
}

func (h *Hand) post(posts []Post) {
	st := &h.s
	k := h.cfg.Stakes
	if posts == nil {
		if k.Ante > 0 {
			for i := range st.Seats {
				h.postOne(i, PostAnte, k.Ante)
			}
		}
		if h.cfg.Game.IsStud() {
			return
		}
		if k.SmallBlind == 0 && k.BigBlind == 0 {
			return
		}
		sb := h.firstLeftOf(st.Button)
		if len(st.Seats) == 2 { // G-04: the button posts the small blind
			if b := h.indexOf(st.Button); b >= 0 {
				sb = b
			}
		}
		bb := h.next(sb)
		if k.SmallBlind > 0 {
			h.postOne(sb, PostSmallBlind, k.SmallBlind)
		}
		if k.BigBlind > 0 {
			h.postOne(bb, PostBigBlind, k.BigBlind)
			st.RefIndex = bb
		}
		if k.BigBlindAnte > 0 {
			h.postOne(bb, PostBigBlindAnte, k.BigBlindAnte)
		}
		return
	}
	for _, p := range posts {
		i := h.indexOf(p.Seat)
		h.postOneFor(i, p.Kind, p.Amount, p.Rule)
		switch p.Kind {
		case PostStraddle:
			st.RefIndex = i
		case PostBigBlind:
			if st.RefIndex < 0 {
				st.RefIndex = i
			}
		}
	}
}

func (h *Hand) postOne(i int, kind PostKind, amount int64) { h.postOneFor(i, kind, amount, "") }

// postOneFor posts for seat index i under rule (TP-10 when empty).
func (h *Hand) postOneFor(i int, kind PostKind, amount int64, rule string) {
	p := &h.s.Seats[i]
	got := h.put(p, amount, kind.Live())
	if kind == PostDeadSmallBlind || kind == PostBigBlindAnte || (kind == PostAnte && h.cfg.DeadAntes) {
		p.Dead += got
	}
	rule = cmp.Or(rule, "TP-10")
	h.emit(Event{Kind: EvPost, Seat: p.Seat, Amount: got, Post: kind, Dead: !kind.Live(), AllIn: p.AllIn, Rule: rule})
}

func (h *Hand) draw() cards.Card {
	c := h.s.Deck[h.s.Next]
	h.s.Next++
	return c
}

// drawPrivate deals a face-down card: from the deck, or with physical
// cards an unknown one (the dealer deals it; nobody has entered it).
func (h *Hand) drawPrivate() cards.Card {
	if h.cfg.Physical {
		h.s.Dealt++
		return cards.Unknown
	}
	return h.draw()
}

// dealFirst deals the initial cards round-robin from the left of the button,
// the button last (TP-09).
func (h *Hand) dealFirst() {
	st := &h.s
	n := len(st.Seats)
	start := h.firstLeftOf(st.Button)
	per := h.cfg.Game.HoleCards()
	for r := 0; r < per; r++ {
		for k := 0; k < n; k++ {
			p := &st.Seats[(start+k)%n]
			p.Hole[p.N] = h.drawPrivate()
			if h.cfg.Game.IsStud() && r == 2 {
				p.Up |= 1 << p.N
				if h.cfg.Physical { // the up card is entered as dealt
					st.Await.Up |= 1 << p.Seat
				}
			}
			p.N++
		}
	}
	for k := 0; k < n; k++ {
		p := &st.Seats[(start+k)%n]
		e := Event{Kind: EvDealHole, Seat: p.Seat, Street: st.Street}
		if h.cfg.Game.IsStud() {
			e.NCards = 2
			copy(e.Cards[:], p.Hole[:2])
			h.emit(e)
			if h.cfg.Physical {
				continue
			}
			e = Event{Kind: EvDealUp, Seat: p.Seat, NCards: 1}
			e.Cards[0] = p.Hole[2]
			e.Street = Third
			h.emit(e)
			continue
		}
		e.NCards = uint8(per)
		copy(e.Cards[:], p.Hole[:per])
		h.emit(e)
	}
	if h.cfg.Game.IsStud() {
		st.Street = Third
	}
	// Presence (TP-56 cash: absent seats are never dealt in; TP-57
	// tournament: absent seats are dealt to and killed).
	for i := range st.Seats {
		if st.Seats[i].Absent {
			h.killNoSettle(i, KillAbsent)
		}
	}
}

// burn burns one card unless the deck cannot spare it.
func (h *Hand) burn(need int) {
	st := &h.s
	if st.NoBurn {
		st.NoBurn = false
		return
	}
	if !h.cfg.Burn && !st.ForceBurn {
		return
	}
	st.ForceBurn = false
	if len(st.Deck)-st.Next <= need {
		return
	}
	c := h.draw()
	st.Burned = append(st.Burned, c)
	e := Event{Kind: EvBurn, Seat: -1, NCards: 1}
	e.Cards[0] = c
	h.emit(e)
}

// dealStreet deals the cards of street st.Street (already advanced). With
// physical cards it sets what the street awaits instead (awaitStreet).
func (h *Hand) dealStreet() {
	st := &h.s
	if h.cfg.Physical {
		h.awaitStreet()
		return
	}
	if !h.cfg.Game.IsStud() {
		k := 1
		if st.Street == Flop {
			k = 3
		}
		h.burn(k)
		e := Event{Kind: EvDealBoard, Seat: -1, Street: st.Street, NCards: uint8(k)}
		for j := 0; j < k; j++ {
			c := h.draw()
			st.Board[st.NBoard] = c
			st.NBoard++
			e.Cards[j] = c
		}
		h.emit(e)
		return
	}
	live := 0
	for i := range st.Seats {
		if !st.Seats[i].Folded {
			live++
		}
	}
	h.burn(live*int(Seventh-st.Street) + 1)
	if st.Street == Seventh && len(st.Deck)-st.Next < live {
		// Not enough cards for everyone: one community card.
		c := h.draw()
		st.Board[0] = c
		st.NBoard = 1
		e := Event{Kind: EvDealBoard, Seat: -1, Street: st.Street, NCards: 1}
		e.Cards[0] = c
		h.emit(e)
		return
	}
	h.eachLive(func(p *seat) {
		c := h.draw()
		p.Hole[p.N] = c
		kind := EvDealHole
		if st.Street != Seventh {
			p.Up |= 1 << p.N
			kind = EvDealUp
		}
		p.N++
		e := Event{Kind: kind, Seat: p.Seat, Street: st.Street, NCards: 1}
		e.Cards[0] = c
		h.emit(e)
	})
}

// eachLive calls f for each seat still in the hand, in deal order: from
// the first seat left of the button, the button last (TP-09).
func (h *Hand) eachLive(f func(p *seat)) {
	st := &h.s
	n := len(st.Seats)
	start := h.firstLeftOf(st.Button)
	for k := 0; k < n; k++ {
		if p := &st.Seats[(start+k)%n]; !p.Folded {
			f(p)
		}
	}
}

// lastStreet reports whether the current street is the final betting round.
func (h *Hand) lastStreet() bool {
	if h.cfg.Game.IsStud() {
		return h.s.Street == Seventh
	}
	return h.s.Street == River
}
