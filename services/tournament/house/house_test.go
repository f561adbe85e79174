package house

import (
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/standings"
)

func TestRules(t *testing.T) {
	t.Parallel()
	e := event.Event{ID: "t1", Format: event.Rebuy, BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100}, StartingStack: 10000}
	tests := []struct {
		name   string
		r      Rules
		reason string
	}{
		{"defaults", Rules{}, ""},
		{"G-07 bad sheet", Rules{Sheet: levels.Sheet{Levels: []levels.Level{{BigBlind: 100, Duration: 0}}}}, "INVALID_ARGUMENT"},
		{"G-30 bad payouts", Rules{Payouts: standings.Structure{Tiers: []standings.Tier{{Shares: []int{5000}}}}}, "PAYOUTS_NOT_WHOLE"},
		{"table size", Rules{SeatsPerTable: 12}, "INVALID_ARGUMENT"},
		{"G-23 negative late registration", Rules{Entry: entry.Policy{LateRegistration: -time.Second}}, "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.r.Validate(e)
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				d := tt.r.WithDefaults(e)
				if d.SeatsPerTable != 9 || len(d.Sheet.Levels) == 0 || len(d.Payouts.Tiers) == 0 || d.Entry.RebuyPeriod != time.Hour {
					t.Fatalf("defaults %+v", d)
				}
				return
			}
			if f, ok := fault.As(err); !ok || f.Reason != tt.reason {
				t.Fatalf("Validate = %v, want %s", err, tt.reason)
			}
		})
	}
}
