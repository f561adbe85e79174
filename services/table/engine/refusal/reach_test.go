package refusal_test

import (
	"fmt"
	"log/slog"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/services/table/engine"
	"github.com/cardroom/cardroom/services/table/engine/button"
	"github.com/cardroom/cardroom/services/table/engine/cards"
	"github.com/cardroom/cardroom/services/table/engine/live"
)

// TestRefusals_ReachTheClientWithReasonAndRule: a refusal from each package
// of the engine family, wrapped as the dealer and the runner wrap errors,
// leaves platform/rpc's one status mapping with its code, reason and rule
// ID — none of them converted by the caller, none masked as INTERNAL.
func TestRefusals_ReachTheClientWithReasonAndRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		refuse func() error
		code   codes.Code
		reason string
		rule   string
	}{
		{"engine: TP-22 raise below the minimum", func() error {
			cfg := engine.Config{Game: engine.Holdem, Structure: engine.NoLimit, Stakes: engine.Stakes{SmallBlind: 1, BigBlind: 2}, Profile: engine.DefaultProfile()}
			h, err := engine.NewHand(cfg, engine.Setup{Button: 0, Deck: cards.NewDeck(), Players: []engine.Player{
				{Seat: 0, ID: "A", Stack: 100}, {Seat: 1, ID: "B", Stack: 100}, {Seat: 2, ID: "C", Stack: 100}}})
			if err != nil {
				return fmt.Errorf("new hand: %w", err)
			}
			_, err = h.Apply(engine.Action{Seat: h.ToAct(), Kind: engine.Raise, Amount: 3})
			return err
		}, codes.FailedPrecondition, "RAISE_BELOW_MINIMUM", "TP-22"},
		{"button: TP-20 only the seat after the big blind may straddle", func() error {
			seats := make([]button.Seat, 6)
			for i := range seats {
				seats[i] = button.Seat{Player: string(rune('A' + i)), Stack: 1000}
			}
			seats[5].Straddle = true
			_, err := button.PlanHand(button.Table{Seats: seats, Stakes: button.Stakes{SmallBlind: 5, BigBlind: 10},
				Previous: button.Positions{Button: 0, SmallBlind: 1, BigBlind: 2}})
			return err
		}, codes.FailedPrecondition, "STRADDLE_NOT_ALLOWED", "TP-20"},
		{"live: TP-31 chips not a multiple of the chip unit", func() error {
			_, err := live.Interpret(live.Entry{ChipsTotal: 110, ChipCount: 2, Motions: 1},
				live.Situation{Structure: live.NoLimit, CurrentBet: 200, Stack: 5000, MinRaiseTo: 400, ChipUnit: 25})
			return err
		}, codes.InvalidArgument, "NOT_CHIP_UNIT_MULTIPLE", "TP-31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.refuse()
			if err == nil {
				t.Fatal("not refused")
			}
			err = fmt.Errorf("table t1: %w", err)
			st := status.Convert(rpc.ToStatus(t.Context(), slog.New(slog.DiscardHandler), "/cardroom.table.v1.TableService/Act", err))
			var info *errdetails.ErrorInfo
			for _, d := range st.Details() {
				if i, ok := d.(*errdetails.ErrorInfo); ok {
					info = i
				}
			}
			if st.Code() != tt.code || info.GetReason() != tt.reason || info.GetMetadata()[rpc.MetaRuleID] != tt.rule {
				t.Fatalf("%v reached the client as %v %q, reason %q rule %q; want %v %s %s",
					err, st.Code(), st.Message(), info.GetReason(), info.GetMetadata()[rpc.MetaRuleID], tt.code, tt.reason, tt.rule)
			}
		})
	}
}
