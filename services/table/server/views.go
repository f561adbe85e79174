package server

import (
	"cmp"
	"math"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/table/store"
)

func cardStrings(cs []cards.Card) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

func seatToProto(s runner.SeatView) *tablev1.SeatState {
	p := &tablev1.SeatState{Seat: int32(s.No), PlayerId: s.Player, Stack: s.Stack, SittingOut: s.SittingOut,
		OwesSmallBlind: s.Debt.SmallBlind, OwesBigBlind: s.Debt.BigBlind, PendingChips: s.Pending, Leaving: s.Leaving, NewPlayer: s.New,
		PendingTopUp: s.Unconfirmed}
	p.PostNow = s.PostNow
	p.Straddle = s.Straddle
	p.MissedHands, p.LeftTournament, p.MoveId = int32(s.MissedHands), s.Left, s.MoveOut
	if a := s.Arriving; a != nil {
		p.Arriving, p.MoveId, p.MissedHands, p.LeftTournament = true, a.Move, int32(a.MissedHands), a.Left
	}
	for _, o := range s.Options {
		bo := &tablev1.BlindOption{PostNow: o.Choice == button.PostNow, OnButtonOnly: o.OnButtonOnly, RuleId: o.Rule, Explanation: o.Explanation}
		for _, q := range o.Posts {
			bo.Amount += q.Amount
			if !q.Live {
				bo.Dead += q.Amount
			}
		}
		p.BlindOptions = append(p.BlindOptions, bo)
	}
	if h := s.InHand; h != nil {
		p.InHand = true
		p.Stack, p.Bet, p.Cards = h.Stack, h.Bet, cardStrings(h.Cards)
		p.Folded, p.AllIn, p.Shown, p.Mucked, p.Won = h.Folded || h.Killed, h.AllIn, h.Shown || h.Exposed, h.Mucked, h.Won
		p.CardsUp = make([]bool, len(h.Cards))
		for k := range p.CardsUp {
			p.CardsUp[k] = h.Up&(1<<k) != 0
		}
	}
	return p
}

func stateToProto(v runner.View) *tablev1.TableState {
	st := &tablev1.TableState{TableId: v.TableID, Sequence: v.Seq, ViewerSeat: int32(v.ViewerSeat), Closed: v.Closed}
	for _, s := range v.Seats {
		st.Seats = append(st.Seats, seatToProto(s))
	}
	if h := v.Hand; h != nil {
		hs := &tablev1.HandState{HandNo: v.HandNo, Button: int32(h.Button), Street: h.Street.String(), ToAct: int32(h.ToAct),
			Board: cardStrings(h.Board), Pot: h.Pot, ClockCalled: v.ClockCalled, Done: h.Phase == engine.PhaseDone}
		if !v.Deadline.IsZero() {
			hs.Deadline = timestamppb.New(v.Deadline)
		}
		hs.ButtonDead = !h.Game.IsStud() // stud has no button to speak of
		hs.BetUnit, hs.BringInSeat, hs.BringInDueSeat = h.Unit, int32(h.BringIn), int32(h.BringInDue)
		for _, s := range v.Seats {
			if s.No == h.ToAct && h.ToAct >= 0 {
				hs.ToActPlayerId = s.Player
			}
			if s.No == h.Button && s.InHand != nil {
				hs.ButtonDead = false
			}
		}
		for _, l := range h.Legal {
			if k, ok := actionToProto[l.Kind]; ok {
				hs.Legal = append(hs.Legal, &tablev1.LegalAction{Kind: k, Min: l.Min, Max: l.Max, Seat: int32(l.Seat)})
			}
		}
		if a := h.Awaiting; a != nil {
			hs.Awaiting = &tablev1.AwaitedCards{Street: a.Street.String(), Board: int32(a.Board), UpSeats: seats32(a.UpSeats)}
		}
		hs.ExposurePending = seats32(h.ExposurePending)
		for _, pr := range h.ToAward {
			hs.PotsToAward = append(hs.PotsToAward, &tablev1.PotToAward{Pot: int32(pr.Pot), Amount: pr.Amount, EligibleSeats: seats32(pr.EligibleSeats())})
		}
		hs.Pots = potsToProto(h.Pots, h.Seats)
		hs.Proposal = proposalToProto(v.Proposal)
		for i := range v.Provisionals {
			hs.ProvisionalWagers = append(hs.ProvisionalWagers, provisionalToProto(&v.Provisionals[i]))
		}
		if len(hs.ProvisionalWagers) > 0 {
			hs.Provisional = hs.ProvisionalWagers[0]
		}
		st.Hand = hs
	}
	st.LastHand = lastHandToProto(v.Last)
	return st
}

// potsToProto is a finished hand's pots with their eligible seats and
// winners, each winner named by the player dealt in at the seat.
func potsToProto(pots []engine.PotResult, seats []engine.SeatView) []*tablev1.PotResult {
	players := make(map[int]string, len(seats))
	for _, s := range seats {
		players[s.Seat] = s.ID
	}
	var out []*tablev1.PotResult
	for i, p := range pots {
		pr := &tablev1.PotResult{Pot: int32(i), Amount: p.Amount, EligibleSeats: seats32(p.EligibleSeats())}
		for _, w := range p.Winners {
			pr.Winners = append(pr.Winners, &tablev1.PotShare{Seat: int32(w.Seat), PlayerId: players[w.Seat], Amount: w.Amount, Low: w.Low})
		}
		out = append(out, pr)
	}
	return out
}

// lastHandToProto is the last finished hand as every viewer sees it.
func lastHandToProto(l *dealer.LastHand) *tablev1.HandResult {
	if l == nil {
		return nil
	}
	r := &tablev1.HandResult{HandNo: l.HandNo, Board: cardStrings(l.Board), EndTime: timestamppb.New(l.End)}
	seats := make([]engine.SeatView, 0, len(l.Seats))
	for _, s := range l.Seats {
		seats = append(seats, s.SeatView)
		rs := &tablev1.HandResultSeat{Seat: int32(s.Seat), PlayerId: s.ID, Cards: cardStrings(s.Cards), Folded: s.Folded || s.Killed,
			Shown: (s.Shown || s.Exposed) && !s.Mucked, Mucked: s.Mucked, Won: s.Won, Net: s.Net, Stack: s.Stack}
		rs.CardsUp = make([]bool, len(s.Cards))
		for k := range rs.CardsUp {
			rs.CardsUp[k] = s.Up&(1<<k) != 0
		}
		r.Seats = append(r.Seats, rs)
	}
	r.Pots = potsToProto(l.Pots, seats)
	return r
}

func seats32(in []int) []int32 {
	var out []int32
	for _, s := range in {
		out = append(out, int32(s))
	}
	return out
}

var eventNames = map[engine.EventKind]string{
	engine.EvPost: "post", engine.EvDealHole: "deal_hole", engine.EvDealUp: "deal_up", engine.EvDealBoard: "deal_board",
	engine.EvBurn: "burn", engine.EvFold: "fold", engine.EvCheck: "check", engine.EvCall: "call", engine.EvBet: "bet",
	engine.EvRaise: "raise", engine.EvBringIn: "bring_in", engine.EvComplete: "complete", engine.EvReturn: "return",
	engine.EvRoundEnd: "round_end", engine.EvExpose: "expose", engine.EvShow: "show", engine.EvMuck: "muck",
	engine.EvKill: "kill", engine.EvRevive: "revive", engine.EvRestrict: "restrict", engine.EvAward: "award",
	engine.EvHandEnd: "hand_end", engine.EvOverdeal: "overdeal", engine.EvMisdeal: "misdeal", engine.EvHoleEntry: "hole_entry",
}

func changeToProto(c runner.Change) *tablev1.WatchTableResponse {
	resp := &tablev1.WatchTableResponse{State: stateToProto(c.View)}
	// Each notice is shown in its place among the events (Notice.At).
	notices := slices.SortedStableFunc(slices.Values(c.Notices), func(a, b dealer.Notice) int { return cmp.Compare(a.At, b.At) })
	next := 0
	noticesUpTo := func(at int) {
		for ; next < len(notices) && notices[next].At <= at; next++ {
			n := notices[next]
			resp.Events = append(resp.Events, &tablev1.TableEvent{Kind: n.Kind, Seat: int32(n.Seat), Amount: n.Amount, Rule: n.Rule,
				PlayerId: n.Player, Detail: n.Detail})
		}
	}
	for i := range c.Events {
		noticesUpTo(i)
		e := &c.Events[i]
		name, ok := eventNames[e.Kind]
		if !ok {
			name = e.Kind.String()
		}
		resp.Events = append(resp.Events, &tablev1.TableEvent{Kind: name, Seat: int32(e.Seat), Amount: e.Amount,
			Cards: cardStrings(e.CardList()), Rule: e.Rule, AllIn: e.AllIn, Pot: int32(e.Pot)})
	}
	noticesUpTo(math.MaxInt)
	return resp
}

func playerHandToProto(h store.PlayerHand) *tablev1.PlayerHand {
	return &tablev1.PlayerHand{TableId: h.TableID, HandNo: h.HandNo, Seat: int32(h.Seat), Net: h.Net, EndTime: timestamppb.New(h.End)}
}
