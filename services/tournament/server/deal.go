package server

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/fault"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/deal"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// dealNote marks a prize step whose amount a confirmed deal set (TR-38).
const dealNote = "deal"

// Deal refusals (TR-38) besides the proposal's own (package deal).
var (
	ErrDealTablesInHand = fault.Rule(fault.Precondition, "TR-38", "DEAL_TABLES_IN_HAND",
		"a hand is still being played or booked at the event's tables; they are held, so repeat the request once it is over")
	ErrDealOpen     = fault.Rule(fault.Precondition, "TR-38", "DEAL_OPEN", "a deal proposal is waiting for the players' answers")
	ErrNoDirector   = fault.Rule(fault.Precondition, "TR-38", "DEAL_TABLES_IN_HAND", "the event's tables are not driven by the tournament: their stacks are unknown")
	ErrDealSatelite = fault.Invalidf("tournament_id", "a satellite's prizes are entries to another event: there is no deal to make")
)

var dealMethods = map[tournamentv1.DealMethod]deal.Method{
	tournamentv1.DealMethod_DEAL_METHOD_ICM:       deal.MethodICM,
	tournamentv1.DealMethod_DEAL_METHOD_CHIP_CHOP: deal.MethodChipChop,
	tournamentv1.DealMethod_DEAL_METHOD_CUSTOM:    deal.MethodCustom,
}

var dealStates = map[deal.State]tournamentv1.DealState{
	deal.Proposed:  tournamentv1.DealState_DEAL_STATE_PROPOSED,
	deal.Declined:  tournamentv1.DealState_DEAL_STATE_DECLINED,
	deal.Confirmed: tournamentv1.DealState_DEAL_STATE_CONFIRMED,
}

func dealToProto(d deal.Proposal) *tournamentv1.Deal {
	pb := &tournamentv1.Deal{DealId: int32(d.ID), State: dealStates[d.State], Prizes: d.Prizes, ProposedBy: d.ProposedBy,
		ConfirmedBy: d.ConfirmedBy, CreateTime: timestamppb.New(d.Created)}
	for m, v := range dealMethods {
		if v == d.Method {
			pb.Method = m
		}
	}
	if !d.Confirmed.IsZero() {
		pb.ConfirmTime = timestamppb.New(d.Confirmed)
	}
	for _, p := range d.Players {
		dp := &tournamentv1.DealPlayer{PlayerId: p.PlayerID, Stack: p.Stack, Amount: p.Amount, Agreed: p.Agreed, Declined: p.Declined}
		if !p.Answered.IsZero() {
			dp.AnswerTime = timestamppb.New(p.Answered)
		}
		pb.Players = append(pb.Players, dp)
	}
	return pb
}

// inPlay returns the active entrants with their chips at the tables,
// largest stack first (then by player id). exact reports whether the
// books and the tables agree: every active entrant seated with chips and
// nobody else holding any.
func inPlay(ens []entry.Entry, seated director.Seated) (players []deal.Player, exact bool) {
	exact = !seated.InHand
	active := map[string]bool{}
	for _, en := range ens {
		if en.Status != entry.Active {
			continue
		}
		active[en.PlayerID] = true
		if st := seated.Stacks[en.PlayerID]; st > 0 {
			players = append(players, deal.Player{PlayerID: en.PlayerID, Stack: st})
		} else {
			exact = false // in transit, or busted and not booked yet
		}
	}
	for p, st := range seated.Stacks {
		if st > 0 && !active[p] {
			exact = false
		}
	}
	slices.SortFunc(players, func(a, b deal.Player) int {
		return cmp.Or(cmp.Compare(b.Stack, a.Stack), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	return players, exact
}

// prizesLeft returns the posted prizes of places 1..n, the places the
// players still in will take (TR-36, G-36: without the bounties).
func prizesLeft(pool int64, entrants int, t store.Tournament, n int) []int64 {
	prizes := t.Rules.Payouts.Prizes(entrants, t.Rules.PrizePool(pool, entrants))
	return prizes[:min(n, len(prizes))]
}

// CalculateDeal shows ICM and the chip chop for the players still in,
// with their stacks as the tables hold them now (TR-38).
func (s *Server) CalculateDeal(ctx context.Context, req *tournamentv1.CalculateDealRequest) (*tournamentv1.CalculateDealResponse, error) {
	id := req.GetTournamentId()
	t, err := s.store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if t.Event.Status != event.Running {
		return nil, ErrNotRunning
	}
	if t.Event.Format == event.Satellite {
		return nil, ErrDealSatelite
	}
	if s.director == nil {
		return nil, ErrNoDirector
	}
	seated, err := s.director.Stacks(ctx, id)
	if err != nil {
		return nil, err
	}
	ens, err := s.store.Entries(ctx, id)
	if err != nil {
		return nil, err
	}
	players, _ := inPlay(ens, seated)
	pool, entrants, err := s.store.Contributions(ctx, id)
	if err != nil {
		return nil, err
	}
	resp := &tournamentv1.CalculateDealResponse{Prizes: prizesLeft(pool, entrants, t, len(players))}
	stacks := make([]int64, len(players))
	for i, p := range players {
		stacks[i] = p.Stack
		resp.Players = append(resp.Players, &tournamentv1.DealQuote{PlayerId: p.PlayerID, Stack: p.Stack})
	}
	chop, err := deal.ChipChop(stacks, resp.Prizes)
	if err != nil {
		return nil, err
	}
	for i, a := range chop {
		resp.Players[i].ChipChop = a
	}
	if len(players) <= deal.MaxICMPlayers {
		icm, err := deal.ICM(stacks, resp.Prizes)
		if err != nil {
			return nil, err
		}
		resp.IcmAvailable = true
		for i, a := range icm {
			resp.Players[i].Icm = a
		}
	}
	return resp, nil
}

// ProposeDeal holds the tables and, once none is in a hand and the books
// agree with them, records a proposal over the prizes left (TR-38). A
// proposal refused because a hand is still in play leaves the tables held
// after it — the floor's pause for the deal: repeated once they are at
// rest, it goes through with the players as that hand left them. Refused
// for any other reason, it lets the tables deal again.
func (s *Server) ProposeDeal(ctx context.Context, req *tournamentv1.ProposeDealRequest) (resp *tournamentv1.ProposeDealResponse, err error) {
	id := req.GetTournamentId()
	t, err := s.store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Event.Status != event.Running:
		return nil, ErrNotRunning
	case t.Event.Format == event.Satellite:
		return nil, ErrDealSatelite
	case s.director == nil:
		return nil, ErrNoDirector
	}
	if d, ok, err := s.store.Deal(ctx, id); err != nil {
		return nil, err
	} else if ok && d.State == deal.Proposed {
		return nil, ErrDealOpen.With("deal_id", itoa(d.ID))
	}
	// The hold comes first: once no table is in a hand, none starts one.
	if err := s.director.HoldForDeal(ctx, id); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && !errors.Is(err, ErrDealTablesInHand) && !errors.Is(err, ErrDealOpen) {
			s.drive(ctx, "deal refused", id, s.director.ReleaseDeal)
		}
	}()
	seated, err := s.director.Stacks(ctx, id)
	if err != nil {
		return nil, err
	}
	custom := map[string]int64{}
	for _, sh := range req.GetShares() {
		custom[sh.GetPlayerId()] = sh.GetAmount()
	}
	now := s.now()
	var out deal.Proposal
	err = s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		last, ok, err := tx.Deal()
		if err != nil {
			return err
		}
		if ok && last.State == deal.Proposed {
			return ErrDealOpen.With("deal_id", itoa(last.ID))
		}
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		players, exact := inPlay(ens, seated)
		if !exact || len(t.PendingKnockouts) > 0 {
			return ErrDealTablesInHand
		}
		pool, entrants, err := tx.Contributions()
		if err != nil {
			return err
		}
		out, err = deal.Propose(last.ID+1, dealMethods[req.GetMethod()], players, prizesLeft(pool, entrants, *t, len(players)), custom, actor(ctx), now)
		if err != nil {
			return err
		}
		if err := tx.PutDeal(out); err != nil {
			return err
		}
		return tx.AddAudit(actor(ctx), "deal_proposed", map[string]any{"deal": out, "reason": req.GetReason()}, now)
	})
	if err != nil {
		return nil, err
	}
	return &tournamentv1.ProposeDealResponse{Deal: dealToProto(out)}, nil
}

// AgreeDeal records a player's answer; a refusal lets the tables deal
// again.
func (s *Server) AgreeDeal(ctx context.Context, req *tournamentv1.AgreeDealRequest) (*tournamentv1.AgreeDealResponse, error) {
	id, player := req.GetTournamentId(), req.GetPlayerId()
	if err := actFor(ctx, player); err != nil {
		return nil, err
	}
	now := s.now()
	var d deal.Proposal
	err := s.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		var ok bool
		var err error
		if d, ok, err = tx.Deal(); err != nil {
			return err
		}
		if !ok || d.ID != int(req.GetDealId()) {
			return deal.ErrNotOpen.Withf("deal %d is not the proposal in force", req.GetDealId())
		}
		if err := d.Answer(player, req.GetAgree(), now); err != nil {
			return err
		}
		if err := tx.PutDeal(d); err != nil {
			return err
		}
		return tx.AddAudit(actor(ctx), "deal_answer", map[string]any{"deal_id": d.ID, "player_id": player, "agree": req.GetAgree()}, now)
	})
	if err != nil {
		return nil, err
	}
	if d.State == deal.Declined {
		s.drive(ctx, "deal declined", id, s.director.ReleaseDeal)
	}
	return &tournamentv1.AgreeDealResponse{Deal: dealToProto(d)}, nil
}

// ConfirmDeal confirms a deal every player agreed to: the players in it
// are placed by their stacks (G-37), the prizes are recorded — the deal's
// amounts for them, the posted structure for the others — with each
// player's own head in a knockout event (G-37), and the wallet is asked
// to pay them under their keys.
func (s *Server) ConfirmDeal(ctx context.Context, req *tournamentv1.ConfirmDealRequest) (*tournamentv1.ConfirmDealResponse, error) {
	id := req.GetTournamentId()
	now := s.now()
	var (
		d    deal.Proposal
		pays []entry.Payment
	)
	err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		pays = nil
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		var ok bool
		var err error
		if d, ok, err = tx.Deal(); err != nil {
			return err
		}
		if !ok || d.ID != int(req.GetDealId()) {
			return deal.ErrNotOpen.Withf("deal %d is not the proposal in force", req.GetDealId())
		}
		if err := d.Confirm(actor(ctx), now); err != nil {
			return err
		}
		if err := tx.PutDeal(d); err != nil {
			return err
		}
		if err := tx.AddAudit(actor(ctx), "deal_confirmed", map[string]any{"deal": d, "reason": req.GetReason()}, now); err != nil {
			return err
		}
		b, byPlayer, err := board(tx, t)
		if err != nil {
			return err
		}
		// G-37: the chip leader takes first place, the others go out
		// together, placed by their stacks as in one hand (TR-37).
		t.HandForHand.Stop()
		var (
			kos    []standings.Knockout
			others []string
		)
		for _, p := range d.Players[1:] {
			kos = append(kos, standings.Knockout{PlayerID: p.PlayerID, TableID: "deal", StartStack: p.Stack})
			others = append(others, p.PlayerID)
		}
		own, err := collectHeads(tx, t, others, byPlayer, now)
		if err != nil {
			return err
		}
		out, err := knockOut(tx, t, b, byPlayer, kos, 0, now)
		if err != nil {
			return err
		}
		pays = append(own, out.pays...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.desk.PayAll(ctx, id, pays)
	return &tournamentv1.ConfirmDealResponse{Deal: dealToProto(d)}, nil
}

// GetDeal returns the last proposal.
func (s *Server) GetDeal(ctx context.Context, req *tournamentv1.GetDealRequest) (*tournamentv1.GetDealResponse, error) {
	d, ok, err := s.store.Deal(ctx, req.GetTournamentId())
	if err != nil || !ok {
		return &tournamentv1.GetDealResponse{}, err
	}
	return &tournamentv1.GetDealResponse{Deal: dealToProto(d)}, nil
}

// dealAwards replaces the awards of the players in a confirmed deal with
// the deal's amounts (TR-38); without one the posted structure stands.
func dealAwards(tx *store.Tx, finishes []standings.Finish, awards []standings.Award) ([]standings.Award, error) {
	d, ok, err := tx.Deal()
	if err != nil || !ok || d.State != deal.Confirmed {
		return awards, err
	}
	in := map[string]int64{}
	for _, p := range d.Players {
		in[p.PlayerID] = p.Amount
	}
	var out []standings.Award
	for _, a := range awards {
		if _, ok := in[a.PlayerID]; !ok {
			out = append(out, a)
		}
	}
	for _, f := range finishes {
		if amount, ok := in[f.PlayerID]; ok {
			out = append(out, standings.Award{PlayerID: f.PlayerID, Place: f.Place, Amount: amount, Deal: true})
		}
	}
	return out, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
