package main

// Issue 17's rule defects and API rough edges as a front end meets them:
// every request over REST to a suite in its own process on Redis and
// PostgreSQL, the books reconciled afterwards.

import (
	"net/http"
	"testing"

	"github.com/cardroom/cardroom/platform/testkit"
)

// frontendSeed deals the hands of the front-end tests.
const frontendSeed = 17

// newFrontendRoom starts a seeded suite on Redis and PostgreSQL and a room
// with the given players, each with 5 000 in the cage.
func newFrontendRoom(t *testing.T, players ...string) *room {
	t.Helper()
	s := newSeededSuite(t, frontendSeed,
		"REDIS_URL="+testkit.RedisURL(t),
		"CARDROOM_REDIS_PREFIX="+testkit.UniqueName(t)+":",
		"DATABASE_URL="+postgresDatabase(t),
	)
	s.start()
	r := newRoom(t, s, players...)
	for _, p := range players {
		r.deposit(p, 5000)
	}
	return r
}

// openTable opens a digital NL Hold'em cash table with the given blinds
// (and extra fields of the request) and returns the table as created.
func (r *room) openTable(name string, sb, bb int64, extra map[string]any) map[string]any {
	r.t.Helper()
	body := map[string]any{"name": name, "seats": 6, "kind": "TABLE_KIND_CASH", "mode": "TABLE_MODE_DIGITAL",
		"game": map[string]any{"variant": "VARIANT_HOLDEM", "structure": "STRUCTURE_NO_LIMIT",
			"stakes": map[string]any{"small_blind": sb, "big_blind": bb}}}
	for k, v := range extra {
		body[k] = v
	}
	var out struct{ Table map[string]any }
	r.must("POST", "/v1/tables", r.floor, body, &out)
	r.tables = append(r.tables, out.Table["table_id"].(string))
	return out.Table
}

// facingBet returns the table as the player in turn sees it once that
// player faces a bet: in turn pre-flop facing the big blind, or after the
// player in turn has bet the minimum when nobody has yet.
func (r *room) facingBet(table string) tableState {
	r.t.Helper()
	for range 4 {
		st := r.waitHand(table)
		own := r.state(table, r.tokens[st.Seats[st.Hand.ToAct].PlayerID])
		if _, ok := legalOf(own, "ACTION_KIND_CALL"); ok {
			return own
		}
		r.act(table, func(st tableState, _ int) move {
			for _, k := range []string{"ACTION_KIND_BET", "ACTION_KIND_RAISE"} {
				if l, ok := legalOf(st, k); ok {
					return move{kind: k, amount: l.Min}
				}
			}
			r.t.Fatalf("nobody faces a bet and the player in turn cannot bet: %+v", st.Hand.Legal)
			return move{}
		})
	}
	r.t.Fatal("no player in turn faces a bet")
	return tableState{}
}

// TestRefusalsNameTheirRules_TP31_TP46 plays at a 5/10 table opened with
// no chip setting: its smallest chip is 5, the smallest chip of its blinds
// (TP-31), every amount offered is a multiple of it, and a raise to an
// amount that is not is refused NOT_CHIP_UNIT_MULTIPLE citing TP-31 (a
// raise to 23 used to be accepted). A chip setting that does not divide the
// blinds is refused. A check facing a bet and a stale sequence number name
// TP-46 (their rule_id used to be empty). The books are clean afterwards.
func TestRefusalsNameTheirRules_TP31_TP46(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	r := newFrontendRoom(t, "ann", "bob", "cat")
	tb := r.openTable("Fives", 5, 10, nil)
	if tb["min_chip_unit"] != "5" {
		t.Fatalf("a 5/10 table opened without min_chip_unit: %v, want \"5\" (TP-31)", tb["min_chip_unit"])
	}
	table := tb["table_id"].(string)
	code, e := r.refused("POST", "/v1/tables", r.floor, map[string]any{"name": "Threes", "seats": 6, "kind": "TABLE_KIND_CASH",
		"mode": "TABLE_MODE_DIGITAL", "min_chip_unit": 3, "game": map[string]any{"variant": "VARIANT_HOLDEM",
			"structure": "STRUCTURE_NO_LIMIT", "stakes": map[string]any{"small_blind": 5, "big_blind": 10}}})
	if code != http.StatusBadRequest || e.Reason != "NOT_CHIP_UNIT_MULTIPLE" || e.RuleID != "TP-31" {
		t.Fatalf("a chip of 3 at 5/10: %d %+v, want 400 NOT_CHIP_UNIT_MULTIPLE TP-31", code, e)
	}
	for i, p := range []string{"ann", "bob", "cat"} {
		r.must("POST", "/v1/tables/"+table+"/seats", r.floor, map[string]any{"seat": i, "player_id": p, "amount": 1000}, nil)
	}

	own := r.facingBet(table)
	actor := r.tokens[own.Seats[own.ViewerSeat].PlayerID]
	raise, ok := legalOf(own, "ACTION_KIND_RAISE")
	if !ok || raise.Min%5 != 0 || (raise.Max%5 != 0 && raise.Max != own.Seats[own.ViewerSeat].Stack+own.Seats[own.ViewerSeat].Bet) {
		t.Fatalf("TP-31: the raise offered is not in fives: %+v", own.Hand.Legal)
	}
	actions := "/v1/tables/" + table + "/actions"
	for _, c := range []struct {
		name         string
		body         map[string]any
		reason, rule string
	}{
		{"TP-31 a raise to an amount that is not a multiple of 5", map[string]any{"kind": "ACTION_KIND_RAISE", "amount": raise.Min + 3}, "NOT_CHIP_UNIT_MULTIPLE", "TP-31"},
		{"TP-46 a check facing a bet", map[string]any{"kind": "ACTION_KIND_CHECK"}, "CANNOT_CHECK_FACING_BET", "TP-46"},
		{"TP-46 a stale sequence number", map[string]any{"kind": "ACTION_KIND_CALL", "expected_sequence": own.Sequence - 1}, "STALE_SEQUENCE", "TP-46"},
	} {
		code, e := r.refused("POST", actions, actor, c.body)
		if code != http.StatusBadRequest || e.Reason != c.reason || e.RuleID != c.rule {
			t.Fatalf("%s: %d %+v, want 400 %s %s", c.name, code, e, c.reason, c.rule)
		}
	}
	r.playHand(table, checkDown)
	r.checkChips("after the hand at 5/10")
	r.auditClean("after the hand at 5/10")
}
