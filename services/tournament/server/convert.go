package server

import (
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/bounty"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/house"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

var formatFromProto = map[tournamentv1.TournamentFormat]event.Format{
	tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_UNSPECIFIED: event.Freezeout,
	tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_FREEZEOUT:   event.Freezeout,
	tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY:       event.Rebuy,
	tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_SATELLITE:   event.Satellite,
}

var formatToProto = map[event.Format]tournamentv1.TournamentFormat{
	event.Freezeout: tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_FREEZEOUT,
	event.Rebuy:     tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_REBUY,
	event.Satellite: tournamentv1.TournamentFormat_TOURNAMENT_FORMAT_SATELLITE,
}

func rulesFromProto(req *tournamentv1.CreateTournamentRequest) house.Rules {
	var r house.Rules
	if p := req.GetEntryPolicy(); p != nil {
		r.Entry = entry.Policy{
			LateRegistration: p.GetLateRegistration().AsDuration(),
			MaxEntrants:      int(p.GetMaxEntrants()),
			RebuyPeriod:      p.GetRebuyPeriod().AsDuration(),
			RebuyPrice:       p.GetRebuyPrice(),
			RebuyFee:         p.GetRebuyFee(),
			RebuyChips:       p.GetRebuyChips(),
			LastRebuyHands:   int(p.GetLastRebuyHands()),
			MaxRebuys:        int(p.GetMaxRebuys()),
			AddOn:            p.GetAddOn(),
			AddOnPrice:       p.GetAddOnPrice(),
			AddOnFee:         p.GetAddOnFee(),
			AddOnChips:       p.GetAddOnChips(),
			AddOnWindow:      p.GetAddOnWindow().AsDuration(),
			Reentry:          p.GetReentry(),
			MaxReentries:     int(p.GetMaxReentries()),
		}
	}
	for _, l := range req.GetLevels() {
		r.Sheet.Levels = append(r.Sheet.Levels, levels.Level{
			SmallBlind: l.GetSmallBlind(), BigBlind: l.GetBigBlind(), Ante: l.GetAnte(), BigBlindAnte: l.GetBigBlindAnte(),
			Duration: l.GetDuration().AsDuration(), Break: l.GetBreak(), ColorUp: l.GetColorUp(),
		})
	}
	if p := req.GetPayouts(); p != nil {
		r.Payouts.Unit = p.GetUnit()
		for _, t := range p.GetTiers() {
			tier := standings.Tier{MaxEntrants: int(t.GetMaxEntrants())}
			for _, sh := range t.GetShares() {
				tier.Shares = append(tier.Shares, int(sh))
			}
			r.Payouts.Tiers = append(r.Payouts.Tiers, tier)
		}
	}
	r.SeatsPerTable = int(req.GetSeatsPerTable())
	r.Live = req.GetLiveTables()
	r.Bounty = bounty.Rules{Amount: req.GetBounty().GetAmount(), Progressive: req.GetBounty().GetProgressive()}
	r.NoFinalRedraw = req.GetNoFinalRedraw()
	for _, n := range req.GetBreakOrder() {
		r.BreakOrder = append(r.BreakOrder, int(n))
	}
	return r
}

func policyToProto(p entry.Policy) *tournamentv1.EntryPolicy {
	return &tournamentv1.EntryPolicy{
		LateRegistration: durationpb.New(p.LateRegistration),
		MaxEntrants:      int32(p.MaxEntrants),
		RebuyPeriod:      durationpb.New(p.RebuyPeriod),
		RebuyPrice:       p.RebuyPrice,
		RebuyFee:         p.RebuyFee,
		RebuyChips:       p.RebuyChips,
		LastRebuyHands:   int32(p.LastRebuyHands),
		MaxRebuys:        int32(p.MaxRebuys),
		AddOn:            p.AddOn,
		AddOnPrice:       p.AddOnPrice,
		AddOnFee:         p.AddOnFee,
		AddOnChips:       p.AddOnChips,
		AddOnWindow:      durationpb.New(p.AddOnWindow),
		Reentry:          p.Reentry,
		MaxReentries:     int32(p.MaxReentries),
	}
}

func levelToProto(l levels.Level) *tournamentv1.Level {
	return &tournamentv1.Level{
		SmallBlind: l.SmallBlind, BigBlind: l.BigBlind, Ante: l.Ante, BigBlindAnte: l.BigBlindAnte,
		Duration: durationpb.New(l.Duration), Break: l.Break, ColorUp: l.ColorUp,
	}
}

func payoutsToProto(s standings.Structure) *tournamentv1.PayoutStructure {
	out := &tournamentv1.PayoutStructure{Unit: s.Unit}
	for _, t := range s.Tiers {
		tier := &tournamentv1.PayoutTier{MaxEntrants: int32(t.MaxEntrants)}
		for _, sh := range t.Shares {
			tier.Shares = append(tier.Shares, int32(sh))
		}
		out.Tiers = append(out.Tiers, tier)
	}
	return out
}

// tournamentToProto adds the published rules to the event's fields.
func tournamentToProto(t store.Tournament) *tournamentv1.Tournament {
	pb := toProto(t.Event)
	pb.EntryPolicy = policyToProto(t.Rules.Entry)
	for _, l := range t.Rules.Sheet.Levels {
		pb.Levels = append(pb.Levels, levelToProto(l))
	}
	pb.Payouts = payoutsToProto(t.Rules.Payouts)
	pb.SeatsPerTable = int32(t.Rules.SeatsPerTable)
	pb.LiveTables = t.Rules.Live
	multiDayToProto(pb, t)
	if t.Rules.Bounty.On() {
		pb.Bounty = &tournamentv1.Bounty{Amount: t.Rules.Bounty.Amount, Progressive: t.Rules.Bounty.Progressive}
	}
	pb.NoFinalRedraw = t.Rules.NoFinalRedraw
	for _, n := range t.Rules.BreakOrder {
		pb.BreakOrder = append(pb.BreakOrder, int32(n))
	}
	return pb
}

func stuckStepToProto(st store.StuckStep) *tournamentv1.StuckStep {
	return &tournamentv1.StuckStep{Step: st.Step, Kind: st.Kind, Error: st.Error, Attempts: int32(st.Attempts),
		FirstFailureTime: timestamppb.New(st.Since), LastFailureTime: timestamppb.New(st.Last)}
}

func chipCheckToProto(c store.ChipCheck) *tournamentv1.ChipCheck {
	return &tournamentv1.ChipCheck{ChipsIssued: c.Issued, ChipsCounted: c.Counted,
		CountedAt: timestamppb.New(c.CountedAt), Mismatch: c.Mismatch()}
}

var entryStatusToProto = map[entry.Status]tournamentv1.EntryStatus{
	entry.Paying:       tournamentv1.EntryStatus_ENTRY_STATUS_PAYING,
	entry.Active:       tournamentv1.EntryStatus_ENTRY_STATUS_ACTIVE,
	entry.Unregistered: tournamentv1.EntryStatus_ENTRY_STATUS_UNREGISTERED,
	entry.Forfeited:    tournamentv1.EntryStatus_ENTRY_STATUS_FORFEITED,
	entry.Busted:       tournamentv1.EntryStatus_ENTRY_STATUS_BUSTED,
	entry.Refunded:     tournamentv1.EntryStatus_ENTRY_STATUS_REFUNDED,
}

func entryToProto(en entry.Entry) *tournamentv1.Entry {
	return &tournamentv1.Entry{
		TournamentId: en.EventID, PlayerId: en.PlayerID, Status: entryStatusToProto[en.Status],
		Rebuys: int32(en.Rebuys), AddOn: en.AddOn, RegisterTime: timestamppb.New(en.RegisteredAt),
		TransferId: en.TransferID, Table: int32(en.Table), Seat: int32(en.Seat), Left: en.Left,
		Reentries: int32(en.Reentries),
	}
}
