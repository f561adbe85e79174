package wire

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	"github.com/cardroom/cardroom/services/seating/waitlist"
)

func TestPolicyFrom(t *testing.T) {
	t.Parallel()
	def := waitlist.DefaultPolicy()
	if got := PolicyFrom(nil, def); got != def {
		t.Fatalf("nil policy = %+v", got)
	}
	got := PolicyFrom(&seatingv1.Policy{OfferTimeout: durationpb.New(time.Minute), MustMove: true, FloorSignUpOnly: true}, def)
	want := waitlist.Policy{OfferTimeout: time.Minute, MustMove: true, FloorSignUpOnly: true,
		ShortAbsence: def.ShortAbsence, LongBreak: def.LongBreak, SitDownWindow: def.SitDownWindow}
	if got != want {
		t.Fatalf("PolicyFrom = %+v, want %+v", got, want)
	}
	if back := PolicyFrom(Policy(def), waitlist.Policy{}); back != def {
		t.Fatalf("round trip = %+v", back)
	}
}

func TestSpecRoundTrip(t *testing.T) {
	t.Parallel()
	g := &gamev1.Game{Variant: gamev1.Variant_VARIANT_STUD, Structure: gamev1.Structure_STRUCTURE_FIXED_LIMIT,
		Stakes: &gamev1.Stakes{Ante: 100, BringIn: 200, SmallBet: 500, BigBet: 1000}}
	if back := Game(Spec(g)); !proto.Equal(back, g) {
		t.Fatalf("round trip %v", back)
	}
}

func TestEventTopicsAndPayloads(t *testing.T) {
	t.Parallel()
	g, err := waitlist.New("w1", Spec(&gamev1.Game{Variant: 1, Structure: 1, Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}),
		waitlist.DefaultPolicy(), time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	offer := waitlist.Offer{ID: "w1.1", Table: "t1", Seat: 3, Player: "ann", State: waitlist.Accepted}
	away := waitlist.Absence{Player: "ann", Table: "t1", Seat: 3, Kind: waitlist.LongBreak}
	tests := []struct {
		ev    waitlist.Event
		topic string
		key   string
		msg   proto.Message
	}{
		{waitlist.Event{Kind: waitlist.OfferAccepted, Offer: offer}, "seating.offer_accepted", "t1", &seatingv1.OfferEvent{}},
		{waitlist.Event{Kind: waitlist.HoldLapsed, Offer: offer}, "seating.hold_lapsed", "t1", &seatingv1.OfferEvent{}},
		{waitlist.Event{Kind: waitlist.AbsenceOverdue, Absence: away}, "seating.absence_overdue", "t1", &seatingv1.AbsenceEvent{}},
		{waitlist.Event{Kind: waitlist.SeatReleased, Absence: away}, "seating.seat_released", "t1", &seatingv1.AbsenceEvent{}},
		{waitlist.Event{Kind: waitlist.OpenTableSuggested, Waiting: 10, Threshold: 10}, "seating.open_table_suggested", "w1", &seatingv1.OpenTableSuggested{}},
	}
	for _, tt := range tests {
		e, err := Event(g, tt.ev)
		if err != nil || e.Topic != tt.topic || e.Key != tt.key {
			t.Fatalf("%s: %+v, %v", tt.topic, e, err)
		}
		if err := proto.Unmarshal(e.Payload, tt.msg); err != nil {
			t.Fatalf("%s: %v", tt.topic, err)
		}
		switch m := tt.msg.(type) {
		case *seatingv1.OfferEvent:
			if m.GetOffer().GetPlayerId() != "ann" || m.GetOffer().GetSeat() != 3 {
				t.Fatalf("%s payload %v", tt.topic, m)
			}
		case *seatingv1.AbsenceEvent:
			if m.GetAbsence().GetKind() != seatingv1.AbsenceKind_ABSENCE_KIND_LONG_BREAK {
				t.Fatalf("%s payload %v", tt.topic, m)
			}
		case *seatingv1.OpenTableSuggested:
			if m.GetWaiting() != 10 || m.GetWaitlistId() != "w1" {
				t.Fatalf("%s payload %v", tt.topic, m)
			}
		}
	}
	if _, err := Event(g, waitlist.Event{Kind: 99}); err == nil {
		t.Fatal("unknown kind encoded")
	}
}
