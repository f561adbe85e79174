package server

import (
	"context"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/fault"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/dealer"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/live"
	"github.com/cardroom/cardroom/services/table/runner"
)

var killFromProto = map[tablev1.KillReason]engine.KillReason{
	tablev1.KillReason_KILL_REASON_UNPROTECTED: engine.KillUnprotected, tablev1.KillReason_KILL_REASON_FOULED: engine.KillFouled,
	tablev1.KillReason_KILL_REASON_WRONG_CARD_COUNT: engine.KillWrongCardCount, tablev1.KillReason_KILL_REASON_ABSENT: engine.KillAbsent,
	tablev1.KillReason_KILL_REASON_EXPOSED: engine.KillExposed, tablev1.KillReason_KILL_REASON_CLOCK_EXPIRED: engine.KillClockExpired,
	tablev1.KillReason_KILL_REASON_LEFT_TABLE: engine.KillLeftTable,
}

// parseCards reads the console's cards ("As", "td"): protovalidate has
// checked their form.
func parseCards(in []string) ([]cards.Card, error) {
	out := make([]cards.Card, 0, len(in))
	for _, s := range in {
		c, err := cards.Parse(s)
		if err != nil {
			return nil, fault.Invalidf("cards", "not a card: %q", s)
		}
		out = append(out, c)
	}
	return out, nil
}

func seatsOf(in []int32) []int {
	out := make([]int, len(in))
	for i, s := range in {
		out[i] = int(s)
	}
	return out
}

// DealerAction applies a console entry.
func (s *Server) DealerAction(ctx context.Context, req *tablev1.DealerActionRequest) (*tablev1.DealerActionResponse, error) {
	cs, err := parseCards(req.GetCards())
	if err != nil {
		return nil, err
	}
	a := runner.DealerArgs{Kind: runner.DealerKind(req.GetKind()), Seat: int(req.GetSeat()), Amount: req.GetAmount(),
		Reason: req.GetReason(), ActionID: req.GetActionId(), NextStreetDealt: req.GetNextStreetDealt(), Cards: cs,
		ProposalID: req.GetProposalId(), Pot: int(req.GetPot()), Winners: seatsOf(req.GetWinners()), LowWinners: seatsOf(req.GetLowWinners()),
		ExtraCards: int(req.GetExtraCards())}
	if req.ExpectedSequence != nil {
		seq := req.GetExpectedSequence()
		a.ExpectedSeq = &seq
	}
	switch req.GetKind() {
	case tablev1.DealerActionKind_DEALER_ACTION_KIND_PLAYER_ACTION, tablev1.DealerActionKind_DEALER_ACTION_KIND_OUT_OF_TURN:
		k, ok := actionFromProto[req.GetAction()]
		if !ok {
			return nil, fault.Invalidf("action", "a player action entry names the action")
		}
		a.Action = k
	case tablev1.DealerActionKind_DEALER_ACTION_KIND_KILL:
		k, ok := killFromProto[req.GetKillReason()]
		if !ok {
			return nil, fault.Invalidf("kill_reason", "a kill names its reason")
		}
		a.Kill = k
	case tablev1.DealerActionKind_DEALER_ACTION_KIND_CONFIRM:
		if req.GetProposalId() == "" {
			return nil, fault.Invalidf("proposal_id", "a confirmation names the proposal")
		}
	case tablev1.DealerActionKind_DEALER_ACTION_KIND_BOARD_OVERDEAL:
		if req.GetExtraCards() < 1 {
			return nil, fault.Invalidf("extra_cards", "an overdeal names how many cards too many were dealt")
		}
	}
	res, err := s.runner.Dealer(ctx, req.GetTableId(), caller(ctx), a)
	if err != nil {
		return nil, err
	}
	resp := &tablev1.DealerActionResponse{State: stateToProto(res.View), Proposal: proposalToProto(res.Proposal)}
	for _, r := range res.OOT {
		resp.OutOfTurn = append(resp.OutOfTurn, ootRulingToProto(r))
	}
	return resp, nil
}

var liveActionToProto = map[live.Action]tablev1.ActionKind{
	live.Fold: tablev1.ActionKind_ACTION_KIND_FOLD, live.Check: tablev1.ActionKind_ACTION_KIND_CHECK,
	live.Call: tablev1.ActionKind_ACTION_KIND_CALL, live.Bet: tablev1.ActionKind_ACTION_KIND_BET,
	live.Raise: tablev1.ActionKind_ACTION_KIND_RAISE,
}

// InterpretEntry proposes, and records, the ruling for a live dealer's
// entry.
func (s *Server) InterpretEntry(ctx context.Context, req *tablev1.InterpretEntryRequest) (*tablev1.InterpretEntryResponse, error) {
	e := live.Entry{Declaration: live.Declaration(req.GetDeclaration()), Amount: req.GetAmount(), RaiseBy: req.GetRaiseBy(),
		ChipsTotal: req.GetChipsTotal(), ChipCount: int(req.GetChipCount()), LargestChip: req.GetLargestChip(),
		Motions: int(req.GetMotions()), DeclaredBeforeChips: req.GetDeclaredBeforeChips()}
	seat := -1
	if req.Seat != nil {
		seat = int(req.GetSeat())
	}
	p, seq, err := s.runner.Interpret(ctx, req.GetTableId(), seat, e)
	if err != nil {
		return nil, err
	}
	ru := p.Ruling
	return &tablev1.InterpretEntryResponse{Seat: int32(p.Seat), Action: liveActionToProto[ru.Action], Amount: ru.Amount, AllIn: ru.AllIn,
		Returned: ru.Returned, Owed: ru.Owed, AwaitAmount: ru.AwaitAmount, CallFloor: p.CallFloor, Sequence: seq, Rules: citationsToProto(ru.Rules),
		ProposalId: p.ID, OutOfTurn: p.OutOfTurn}, nil
}

func proposalToProto(p *dealer.Proposal) *tablev1.Proposal {
	if p == nil {
		return nil
	}
	out := &tablev1.Proposal{ProposalId: p.ID, Seat: int32(p.Seat), OutOfTurn: p.OutOfTurn, Amount: p.Amount, CallFloor: p.CallFloor,
		AwaitAmount: p.AwaitAmount, Rules: citationsToProto(p.Ruling.Rules), Sequence: p.Seq, Pot: int32(p.Pot)}
	if !p.None && p.Kind != engine.AwardPot {
		out.Action = actionToProto[p.Kind]
	}
	for _, w := range p.Winners {
		out.Winners = append(out.Winners, int32(w))
	}
	for _, w := range p.LowWinners {
		out.LowWinners = append(out.LowWinners, int32(w))
	}
	return out
}

// ListRulings lists a table's audited rulings.
func (s *Server) ListRulings(ctx context.Context, req *tablev1.ListRulingsRequest) (*tablev1.ListRulingsResponse, error) {
	if _, err := s.runner.Definition(ctx, req.GetTableId()); err != nil {
		return nil, err
	}
	log, err := s.runner.AuditLog(ctx, req.GetTableId())
	if err != nil {
		return nil, err
	}
	resp := &tablev1.ListRulingsResponse{}
	for _, a := range log {
		ids := a.RuleIDs
		if len(ids) == 0 {
			ids = ruleIDsOf(a.Action) // recorded before the rules were stored with the ruling
		}
		resp.Rulings = append(resp.Rulings, &tablev1.Ruling{HandNo: a.HandNo, Actor: a.Actor, Role: a.Role, Action: a.Action,
			Seat: int32(a.Seat), Reason: a.Reason, Time: timestamppb.New(a.At), RuleIds: slices.Clone(ids)})
	}
	return resp, nil
}
