// Package wire converts between the seating domain (package waitlist) and
// its protobuf messages, for the gRPC server's responses and the events
// seating publishes.
package wire

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cardroom/cardroom/platform/events"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

// Spec returns the domain game of a proto game.
func Spec(g *gamev1.Game) waitlist.Spec {
	s := g.GetStakes()
	return waitlist.Spec{
		Variant: int32(g.GetVariant()), Structure: int32(g.GetStructure()),
		Stakes: waitlist.Stakes{
			SmallBlind: s.GetSmallBlind(), BigBlind: s.GetBigBlind(), Ante: s.GetAnte(),
			BringIn: s.GetBringIn(), SmallBet: s.GetSmallBet(), BigBet: s.GetBigBet(),
		},
	}
}

// Game returns the proto game of a domain game.
func Game(s waitlist.Spec) *gamev1.Game {
	k := s.Stakes
	return &gamev1.Game{
		Variant: gamev1.Variant(s.Variant), Structure: gamev1.Structure(s.Structure),
		Stakes: &gamev1.Stakes{SmallBlind: k.SmallBlind, BigBlind: k.BigBlind, Ante: k.Ante,
			BringIn: k.BringIn, SmallBet: k.SmallBet, BigBet: k.BigBet},
	}
}

// PolicyFrom returns the policy a request asks for: defaults when p is
// nil, and each unset duration taken from defaults.
func PolicyFrom(p *seatingv1.Policy, defaults waitlist.Policy) waitlist.Policy {
	if p == nil {
		return defaults
	}
	dur := func(d *durationpb.Duration, def time.Duration) time.Duration {
		if d == nil {
			return def
		}
		return d.AsDuration()
	}
	return waitlist.Policy{
		OfferTimeout:        dur(p.GetOfferTimeout(), defaults.OfferTimeout),
		DeclineKeepsPlace:   p.GetDeclineKeepsPlace(),
		ExpiryKeepsPlace:    p.GetExpiryKeepsPlace(),
		TableChangePriority: p.GetTableChangePriority(),
		MustMove:            p.GetMustMove(),
		OpenTableThreshold:  int(p.GetOpenTableThreshold()),
		ShortAbsence:        dur(p.GetShortAbsence(), defaults.ShortAbsence),
		LongBreak:           dur(p.GetLongBreak(), defaults.LongBreak),
		SitDownWindow:       dur(p.GetSitDownWindow(), defaults.SitDownWindow),
		FloorSignUpOnly:     p.GetFloorSignUpOnly(),
	}
}

// Policy returns the proto policy.
func Policy(p waitlist.Policy) *seatingv1.Policy {
	return &seatingv1.Policy{
		OfferTimeout:        durationpb.New(p.OfferTimeout),
		DeclineKeepsPlace:   p.DeclineKeepsPlace,
		ExpiryKeepsPlace:    p.ExpiryKeepsPlace,
		TableChangePriority: p.TableChangePriority,
		MustMove:            p.MustMove,
		OpenTableThreshold:  int32(p.OpenTableThreshold),
		ShortAbsence:        durationpb.New(p.ShortAbsence),
		LongBreak:           durationpb.New(p.LongBreak),
		SitDownWindow:       durationpb.New(p.SitDownWindow),
		FloorSignUpOnly:     p.FloorSignUpOnly,
	}
}

// Waitlist returns the list's summary.
func Waitlist(g *waitlist.Game) *seatingv1.Waitlist {
	return &seatingv1.Waitlist{
		WaitlistId: g.ID, Game: Game(g.Spec), Waiting: int32(g.Waiting()),
		CreateTime: timestamppb.New(g.Created), Name: g.Spec.Name(), Policy: Policy(g.Policy),
	}
}

// Entry returns the entry at index i (position i+1) with its estimated wait.
func Entry(g *waitlist.Game, i int) *seatingv1.Entry {
	e := g.Entries[i]
	return &seatingv1.Entry{
		PlayerId: e.Player, Position: int32(i + 1), Kind: seatingv1.EntryKind(e.Kind),
		SignUp: seatingv1.SignUp(e.SignUp), JoinTime: timestamppb.New(e.Joined),
		EstimatedWait: durationpb.New(g.EstimatedWait(i + 1)), FromTableId: e.FromTable,
	}
}

// EntryOf returns the player's entry, or nil when they are not on the list.
func EntryOf(g *waitlist.Game, player string) *seatingv1.Entry {
	if pos := g.Position(player); pos > 0 {
		return Entry(g, pos-1)
	}
	return nil
}

// Entries returns the whole list.
func Entries(g *waitlist.Game) []*seatingv1.Entry {
	out := make([]*seatingv1.Entry, len(g.Entries))
	for i := range g.Entries {
		out[i] = Entry(g, i)
	}
	return out
}

// Offer returns the proto offer.
func Offer(g *waitlist.Game, o waitlist.Offer) *seatingv1.Offer {
	p := &seatingv1.Offer{
		OfferId: o.ID, WaitlistId: g.ID, TableId: o.Table, Seat: int32(o.Seat), PlayerId: o.Player,
		State: seatingv1.OfferState(o.State), CreateTime: timestamppb.New(o.Made),
		ExpireTime: timestamppb.New(o.Expires), Game: Game(g.Spec),
	}
	if !o.HoldUntil.IsZero() {
		p.HoldUntil = timestamppb.New(o.HoldUntil)
	}
	return p
}

// Absence returns the proto absence.
func Absence(g *waitlist.Game, a waitlist.Absence) *seatingv1.Absence {
	return &seatingv1.Absence{
		WaitlistId: g.ID, TableId: a.Table, Seat: int32(a.Seat), PlayerId: a.Player,
		Kind: seatingv1.AbsenceKind(a.Kind), StartTime: timestamppb.New(a.Start),
		DueTime: timestamppb.New(a.Due), Overdue: a.Overdue, GamingDay: a.GamingDay,
	}
}

// Table returns the proto table.
func Table(t waitlist.Table) *seatingv1.Table {
	p := &seatingv1.Table{TableId: t.ID, Name: t.Name, MustMove: t.MustMove}
	for _, s := range t.Seats {
		p.Seats = append(p.Seats, &seatingv1.Seat{Seat: int32(s.Number), State: seatingv1.SeatState(s.State), PlayerId: s.Player})
	}
	return p
}

// Board returns the list as the room's screens show it.
func Board(g *waitlist.Game, version int64) *seatingv1.WaitlistBoard {
	b := &seatingv1.WaitlistBoard{Waitlist: Waitlist(g), Entries: Entries(g), Version: version}
	for _, t := range g.Tables {
		b.Tables = append(b.Tables, Table(t))
	}
	for _, o := range g.PendingOffers() {
		b.Offers = append(b.Offers, Offer(g, o))
	}
	for _, a := range g.Absences {
		b.Absences = append(b.Absences, Absence(g, a))
	}
	return b
}

// Event returns the bus event announcing a domain event of game g. Offer
// and absence events are keyed by table, the suggestion by list.
func Event(g *waitlist.Game, ev waitlist.Event) (events.Event, error) {
	var msg proto.Message
	key := ev.Offer.Table
	switch ev.Kind {
	case waitlist.OfferMade, waitlist.OfferAccepted, waitlist.OfferDeclined, waitlist.OfferExpired, waitlist.OfferWithdrawn, waitlist.HoldLapsed:
		msg = &seatingv1.OfferEvent{Offer: Offer(g, ev.Offer)}
	case waitlist.PlayerAway, waitlist.PlayerBack, waitlist.AbsenceOverdue, waitlist.SeatReleased:
		msg, key = &seatingv1.AbsenceEvent{Absence: Absence(g, ev.Absence)}, ev.Absence.Table
	case waitlist.OpenTableSuggested:
		msg, key = &seatingv1.OpenTableSuggested{WaitlistId: g.ID, Game: Game(g.Spec),
			Waiting: int32(ev.Waiting), Threshold: int32(ev.Threshold)}, g.ID
	default:
		return events.Event{}, fmt.Errorf("no topic for seating event kind %d", ev.Kind)
	}
	payload, err := proto.Marshal(msg)
	if err != nil {
		return events.Event{}, fmt.Errorf("encode %s: %w", ev.Kind.Topic(), err)
	}
	return events.Event{Topic: ev.Kind.Topic(), Key: key, Payload: payload}, nil
}
