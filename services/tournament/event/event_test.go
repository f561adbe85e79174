package event

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func valid() Event {
	return Event{
		Name: "Monday Deepstack", Game: "HOLDEM", Structure: "NO_LIMIT", Format: Freezeout,
		BuyIn:         BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"},
		StartingStack: 20000, StartsAt: now.Add(6 * time.Hour),
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		edit      func(*Event)
		wantField string
		wantRule  string
	}{
		{name: "valid 50 + 11 entry (TR-04)", edit: func(*Event) {}},
		{name: "empty name", edit: func(e *Event) { e.Name = "  " }, wantField: "name"},
		{name: "long name", edit: func(e *Event) { e.Name = strings.Repeat("x", MaxNameLength+1) }, wantField: "name"},
		{name: "zero prize pool part (TR-04)", edit: func(e *Event) { e.BuyIn.PrizePool = 0 }, wantField: "buy_in.prize_pool"},
		{name: "negative fee (TR-04)", edit: func(e *Event) { e.BuyIn.Fee = -1 }, wantField: "buy_in.fee"},
		{name: "bad currency", edit: func(e *Event) { e.BuyIn.Currency = "eur" }, wantField: "buy_in.currency"},
		{name: "no starting stack (TR-08)", edit: func(e *Event) { e.StartingStack = 0 }, wantField: "starting_stack"},
		{name: "in the past", edit: func(e *Event) { e.StartsAt = now.Add(-time.Minute) }, wantField: "starts_at"},
		{name: "no format", edit: func(e *Event) { e.Format = FormatUnspecified }, wantField: "format"},
		{name: "TR-19 satellite needs target", edit: func(e *Event) { e.Format = Satellite }, wantField: "target_event_id", wantRule: "TR-19"},
		{name: "target on freezeout", edit: func(e *Event) { e.TargetEventID = "t1" }, wantField: "target_event_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := valid()
			tt.edit(&e)
			err := e.Validate(now)
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			f, ok := fault.As(err)
			if !ok || f.Kind != fault.Invalid || f.Meta["field"] != tt.wantField || f.Rule != tt.wantRule {
				t.Fatalf("Validate = %v (%+v), want invalid %s rule %q", err, f, tt.wantField, tt.wantRule)
			}
		})
	}
}

func TestBuyInTotal_TR04(t *testing.T) {
	t.Parallel()
	if got := (BuyIn{PrizePool: 5000, Fee: 1100}).Total(); got != 6100 {
		t.Fatalf("Total = %d, want 6100", got)
	}
}

func TestCancel_TR03(t *testing.T) {
	t.Parallel()
	for _, st := range []Status{Scheduled, Running} {
		e := valid()
		e.Status = st
		if err := e.Cancel(); err != nil || e.Status != Cancelled {
			t.Fatalf("Cancel from %v = %v, status %v", st, err, e.Status)
		}
	}
	for _, st := range []Status{Finished, Cancelled} {
		e := valid()
		e.Status = st
		if err := e.Cancel(); !errors.Is(err, ErrNotCancellable) || e.Status != st {
			t.Fatalf("Cancel from %v = %v, status %v", st, err, e.Status)
		}
	}
}

func TestChange_TR03(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		status   Status
		newName  string
		startsAt time.Time
		at       time.Time
		reason   string
		want     string
	}{
		{"TR-03 rename before the start", Scheduled, "Tuesday Deepstack", time.Time{}, now, "", "Tuesday Deepstack"},
		{"TR-03 reschedule", Scheduled, "", now.Add(24 * time.Hour), now, "", "Monday Deepstack"},
		{"TR-03 not into the past", Scheduled, "", now.Add(-time.Hour), now, "INVALID_ARGUMENT", ""},
		{"TR-03 not once running", Running, "x", time.Time{}, now, "EVENT_NOT_CHANGEABLE", ""},
		{"TR-03 not once the start time passed", Scheduled, "x", time.Time{}, now.Add(7 * time.Hour), "EVENT_NOT_CHANGEABLE", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := valid()
			e.Status = tt.status
			before := e
			err := e.Change(tt.newName, tt.startsAt, tt.at)
			if tt.reason != "" {
				if f, ok := fault.As(err); !ok || f.Reason != tt.reason || e != before {
					t.Fatalf("Change = %v (event %+v)", err, e)
				}
				return
			}
			if err != nil || e.Name != tt.want || (!tt.startsAt.IsZero() && !e.StartsAt.Equal(tt.startsAt)) {
				t.Fatalf("Change = %v, %+v", err, e)
			}
		})
	}
}
