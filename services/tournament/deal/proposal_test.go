package deal

import (
	"errors"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
)

var at = time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)

func reason(err error) string {
	var f *fault.Error
	if errors.As(err, &f) {
		return f.Reason
	}
	return ""
}

// TestPropose_TR38: a proposal shares exactly the prizes left — by ICM,
// chip chop or amounts the players named — and custom amounts that miss
// a player or a cent are refused.
func TestPropose_TR38(t *testing.T) {
	t.Parallel()
	stacks := []Player{{PlayerID: "a", Stack: 5000}, {PlayerID: "b", Stack: 3000}, {PlayerID: "c", Stack: 2000}}
	prizes := []int64{50000, 30000, 20000}
	tests := []struct {
		name   string
		method Method
		custom map[string]int64
		want   []int64
		reason string
	}{
		{"icm", MethodICM, nil, mustICM(t, stacks, prizes), ""},
		{"chip chop", MethodChipChop, nil, []int64{20000 + 20000, 20000 + 12000, 20000 + 8000}, ""},
		{"custom", MethodCustom, map[string]int64{"a": 40000, "b": 35000, "c": 25000}, []int64{40000, 35000, 25000}, ""},
		{"custom a cent short", MethodCustom, map[string]int64{"a": 40000, "b": 35000, "c": 24999}, nil, "DEAL_AMOUNTS_MISMATCH"},
		{"custom without a player", MethodCustom, map[string]int64{"a": 60000, "b": 40000}, nil, "DEAL_AMOUNTS_MISMATCH"},
		{"custom naming someone else", MethodCustom, map[string]int64{"a": 40000, "b": 35000, "x": 25000}, nil, "DEAL_AMOUNTS_MISMATCH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := Propose(1, tc.method, stacks, prizes, tc.custom, "floor", at)
			if tc.reason != "" {
				if reason(err) != tc.reason {
					t.Fatalf("Propose = %v, want %s", err, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			for i, pl := range p.Players {
				if pl.Amount != tc.want[i] || pl.PlayerID != stacks[i].PlayerID || pl.Stack != stacks[i].Stack {
					t.Fatalf("player %d = %+v, want %s %d", i, pl, stacks[i].PlayerID, tc.want[i])
				}
				sum += pl.Amount
			}
			if sum != 100000 || p.State != Proposed {
				t.Fatalf("sum %d state %s", sum, p.State)
			}
		})
	}
}

func mustICM(t *testing.T, stacks []Player, prizes []int64) []int64 {
	t.Helper()
	chips := make([]int64, len(stacks))
	for i, s := range stacks {
		chips[i] = s.Stack
	}
	out, err := ICM(chips, prizes)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProposalAnswers_TR38: the floor confirms only once every player
// agreed; one refusal ends the proposal; nobody outside it answers.
func TestProposalAnswers_TR38(t *testing.T) {
	t.Parallel()
	type step struct {
		player string
		agree  bool
		reason string
	}
	tests := []struct {
		name          string
		answers       []step
		confirmReason string
		state         State
	}{
		{"all agree", []step{{"a", true, ""}, {"b", true, ""}}, "", Confirmed},
		{"one has not answered", []step{{"a", true, ""}}, "DEAL_NOT_AGREED", Proposed},
		{"one refuses", []step{{"a", true, ""}, {"b", false, ""}, {"a", true, "DEAL_NOT_OPEN"}}, "DEAL_NOT_OPEN", Declined},
		{"a stranger", []step{{"x", true, "DEAL_NOT_A_PLAYER"}}, "DEAL_NOT_AGREED", Proposed},
		{"a change of mind before the floor", []step{{"a", true, ""}, {"b", true, ""}, {"a", false, ""}}, "DEAL_NOT_OPEN", Declined},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := Propose(1, MethodChipChop, []Player{{PlayerID: "a", Stack: 10}, {PlayerID: "b", Stack: 30}}, []int64{700, 300}, nil, "floor", at)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.answers {
				if err := p.Answer(s.player, s.agree, at); reason(err) != s.reason {
					t.Fatalf("Answer(%s, %v) = %v, want %q", s.player, s.agree, err, s.reason)
				}
			}
			if err := p.Confirm("floor2", at); reason(err) != tc.confirmReason {
				t.Fatalf("Confirm = %v, want %q", err, tc.confirmReason)
			}
			if p.State != tc.state {
				t.Fatalf("state %s, want %s", p.State, tc.state)
			}
			if p.State == Confirmed && (p.ConfirmedBy != "floor2" || !p.Confirmed.Equal(at)) {
				t.Fatalf("confirmation not recorded: %+v", p)
			}
		})
	}
}
