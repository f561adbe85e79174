package server

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/balance"
	"github.com/cardroom/cardroom/services/tournament/chiprace"
	"github.com/cardroom/cardroom/services/tournament/draw"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// board rebuilds the field from the entries and the places given.
func board(tx *store.Tx, t *store.Tournament) (*standings.Board, map[string]entry.Entry, error) {
	ens, err := tx.Entries()
	if err != nil {
		return nil, nil, err
	}
	fins, err := tx.Finishes()
	if err != nil {
		return nil, nil, err
	}
	b := &standings.Board{Finishes: fins}
	byPlayer := map[string]entry.Entry{}
	// Players out in a hand-for-hand round not yet over are busted but
	// still hold a place in the field until the round places them.
	b.Remaining += len(t.PendingKnockouts)
	for _, en := range ens {
		byPlayer[en.PlayerID] = en
		switch en.Status {
		case entry.Active:
			b.Remaining++
			b.Entrants++
		case entry.Busted:
			b.Entrants++
		}
	}
	return b, byPlayer, nil
}

// handBoard is board for a hand that knocks out kos, whose players' entries
// are seated: unless the hand can end the event (two players or fewer
// left after it), or its knock-outs wait for a hand-for-hand round, the
// field is counted and only the knocked-out players' places are read, not
// every entry and place (issue 10: a hand with a bust cost O(entrants)).
// What the knock-out reads of the board and entries is the same: the
// field's counts, those players' places and entries.
func handBoard(tx *store.Tx, t *store.Tournament, seated map[string]entry.Entry, kos []standings.Knockout) (*standings.Board, map[string]entry.Entry, int, error) {
	active, busted, err := tx.Field()
	if err != nil {
		return nil, nil, 0, err
	}
	remaining := active + len(t.PendingKnockouts)
	if t.HandForHand.Active || remaining-len(kos) <= 1 {
		b, byPlayer, err := board(tx, t)
		return b, byPlayer, activeCount(byPlayer), err
	}
	b := &standings.Board{Entrants: active + busted, Remaining: remaining}
	for _, k := range kos {
		f, ok, err := tx.FinishOf(k.PlayerID)
		if err != nil {
			return nil, nil, 0, err
		}
		if ok {
			b.Finishes = append(b.Finishes, f)
		}
	}
	return b, maps.Clone(seated), active, nil
}

// finishIfLast places the last player first, finishes the tournament and
// records its prize payments. seatPrice is a satellite target's entry.
func finishIfLast(tx *store.Tx, t *store.Tournament, b *standings.Board, byPlayer map[string]entry.Entry, seatPrice int64, now time.Time) ([]standings.Finish, []entry.Payment, error) {
	if b.Remaining != 1 || t.Rules.Flight != nil {
		// A flight plays no winner: its last survivors are bagged for
		// Day 2, which pays the prizes (issue 13).
		return nil, nil, nil
	}
	var winner string
	for _, en := range byPlayer {
		if en.Status == entry.Active {
			winner = en.PlayerID
		}
	}
	f, err := b.Win(winner)
	if err != nil {
		return nil, nil, err
	}
	if err := tx.AddFinishes([]standings.Finish{f}, now); err != nil {
		return nil, nil, err
	}
	// The event reads finished only once every prize is paid (payAll).
	t.Event.Status = event.Paying
	pool, entrants, err := tx.Contributions()
	if err != nil {
		return nil, nil, err
	}
	var awards []standings.Award
	if t.Event.Format == event.Satellite {
		awards = standings.SatelliteAwards(b.Finishes, pool, seatPrice)
	} else {
		// G-36: the bounties are not the payout structure's to share.
		awards = standings.Awards(b.Finishes, t.Rules.Payouts.Prizes(entrants, t.Rules.PrizePool(pool, entrants)))
		if awards, err = dealAwards(tx, b.Finishes, awards); err != nil {
			return nil, nil, err
		}
	}
	var pays []entry.Payment
	for _, a := range awards {
		if a.Amount <= 0 {
			continue // nothing to pay, or withheld from an expelled player (TR-34)
		}
		p := entry.Payment{Kind: entry.PayPrize, EventID: t.Event.ID, PlayerID: a.PlayerID, Currency: t.Event.BuyIn.Currency,
			Amount: a.Amount, Place: a.Place}
		if a.Voucher {
			p.Kind, p.TargetEventID = entry.PayVoucher, t.Event.TargetEventID
		}
		p.Key = entry.PaymentKey(t.Event.ID, a.PlayerID, p.Kind, 1)
		if a.Deal {
			p.Note = dealNote
		}
		if err := tx.AddPayment(p, 0, now); err != nil {
			return nil, nil, err
		}
		pays = append(pays, p)
	}
	// G-36: the winner collects their own head.
	own, err := collectHeads(tx, t, []string{winner}, byPlayer, now)
	if err != nil {
		return nil, nil, err
	}
	pays = append(pays, own...)
	if len(pays) == 0 {
		t.Event.Status = event.Finished
	}
	return []standings.Finish{f}, pays, nil
}

func activeCount(byPlayer map[string]entry.Entry) int {
	n := 0
	for _, en := range byPlayer {
		if en.Status == entry.Active {
			n++
		}
	}
	return n
}

// placePending places the knock-outs of a finished hand-for-hand round
// together (TR-37) and finishes the tournament if one player is left.
func placePending(tx *store.Tx, t *store.Tournament, price int64, now time.Time) ([]standings.Finish, []entry.Payment, error) {
	if len(t.PendingKnockouts) == 0 {
		return nil, nil, nil
	}
	b, byPlayer, err := board(tx, t)
	if err != nil {
		return nil, nil, err
	}
	fs, err := b.KnockOut(t.PendingKnockouts)
	if err != nil {
		return nil, nil, err
	}
	if err := tx.AddFinishes(fs, now); err != nil {
		return nil, nil, err
	}
	t.PendingKnockouts = nil
	win, pays, err := finishIfLast(tx, t, b, byPlayer, price, now)
	if err != nil {
		return nil, nil, err
	}
	if t.Event.Status.PlayOver() {
		t.HandForHand.Stop()
	}
	return append(fs, win...), pays, nil
}

// knockedOut is what knockOut did.
type knockedOut struct {
	// finishes are the places given, the winner's last when the
	// tournament finished.
	finishes []standings.Finish
	// deferred is set when hand-for-hand holds the places for the round.
	deferred bool
	// pays are the prize payments to make when the tournament finished.
	pays []entry.Payment
}

// knockOut takes players checked out of the event (entry.KnockOut) out of
// play: busted, placed together (TR-37) — or held for the hand-for-hand
// round — and the tournament finished when one is left. RecordKnockouts
// (the floor) and the table.hand_ended consumer (the tables) both place
// knock-outs through it.
func knockOut(tx *store.Tx, t *store.Tournament, b *standings.Board, byPlayer map[string]entry.Entry, kos []standings.Knockout,
	price int64, now time.Time) (knockedOut, error) {
	for _, k := range kos {
		en := byPlayer[k.PlayerID]
		en.Status = entry.Busted
		byPlayer[en.PlayerID] = en
		delete(t.HeldBusts, en.PlayerID)
		if err := tx.PutEntry(en); err != nil {
			return knockedOut{}, err
		}
	}
	if t.HandForHand.Active {
		// TR-37: knocked out at different tables during hand-for-hand,
		// players share; so the round's knock-outs wait for the round.
		t.PendingKnockouts = append(t.PendingKnockouts, kos...)
		return knockedOut{deferred: true}, nil
	}
	fs, err := b.KnockOut(kos)
	if err != nil {
		return knockedOut{}, err
	}
	if err := tx.AddFinishes(fs, now); err != nil {
		return knockedOut{}, err
	}
	win, pays, err := finishIfLast(tx, t, b, byPlayer, price, now)
	if err != nil {
		return knockedOut{}, err
	}
	return knockedOut{finishes: append(fs, win...), pays: pays}, nil
}

// seatPrice returns what one satellite seat costs: the target event's
// entry (TR-19).
func (s *Server) seatPrice(ctx context.Context, id string) (int64, error) {
	t, err := s.store.Load(ctx, id)
	if err != nil || t.Event.Format != event.Satellite {
		return 0, err
	}
	target, err := s.store.Load(ctx, t.Event.TargetEventID)
	if err != nil {
		return 0, err
	}
	return target.Event.BuyIn.Total(), nil
}

// RecordKnockouts places knocked-out players (TR-37) and finishes the
// tournament when one is left.
func (s *Server) RecordKnockouts(ctx context.Context, req *tournamentv1.RecordKnockoutsRequest) (*tournamentv1.RecordKnockoutsResponse, error) {
	id := req.GetTournamentId()
	price, err := s.seatPrice(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	resp := &tournamentv1.RecordKnockoutsResponse{}
	var pays []entry.Payment
	err = s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		resp.Finishes, resp.Finished, pays = nil, false, nil
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		b, byPlayer, err := board(tx, t)
		if err != nil {
			return err
		}
		var (
			kos         []standings.Knockout
			eliminators [][]string
		)
		if len(req.GetKnockouts()) >= activeCount(byPlayer) {
			return standings.ErrTooManyOut.Withf("%d knocked out with %d in play", len(req.GetKnockouts()), activeCount(byPlayer))
		}
		seen := map[string]bool{}
		for _, k := range req.GetKnockouts() {
			en, ok := byPlayer[k.GetPlayerId()]
			if !ok || en.Status != entry.Active || seen[en.PlayerID] {
				return entry.ErrEntryNotActive.Withf("%s is not in play", k.GetPlayerId()).With("player_id", k.GetPlayerId())
			}
			if err := entry.KnockOut(t.Event, t.Rules.Entry, en, entry.Table{Now: now, HandsSincePeriodEnd: handsSincePeriodEnd(t, en, 0)},
				k.GetDeclinedRebuy()); err != nil {
				return err
			}
			seen[en.PlayerID] = true
			kos = append(kos, standings.Knockout{PlayerID: k.GetPlayerId(), TableID: strconv.Itoa(int(k.GetTable())),
				Hand: k.GetHand(), StartStack: k.GetStartStack()})
			eliminators = append(eliminators, k.GetEliminatedBy())
		}
		// G-36: a head the floor saw won goes to the players it names, who
		// must be in play and not out in the same report.
		for _, by := range eliminators {
			for _, p := range by {
				if en, ok := byPlayer[p]; !ok || en.Status != entry.Active || seen[p] {
					return entry.ErrEntryNotActive.Withf("eliminator %s is not in play", p).With("player_id", p)
				}
			}
		}
		bounties, err := awardFloorBounties(tx, t, kos, eliminators, byPlayer, actor(ctx), now)
		if err != nil {
			return err
		}
		out, err := knockOut(tx, t, b, byPlayer, kos, price, now)
		if err != nil {
			return err
		}
		pays, resp.Deferred = append(bounties, out.pays...), out.deferred
		resp.Finished = t.Event.Status.PlayOver()
		for _, f := range out.finishes {
			resp.Finishes = append(resp.Finishes, finishToProto(f))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.desk.PayAll(ctx, id, pays)
	if resp.Finished {
		resp.Prizes, err = s.prizes(ctx, id)
		if err != nil {
			return nil, err
		}
	} else {
		// Taken out between hands: no hand's end may follow at a table
		// left unable to deal (TR-23, G-25).
		s.drive(ctx, "knock-outs", id, s.directorSettle)
	}
	return resp, nil
}

var prizeStates = map[store.PaymentState]tournamentv1.PrizeState{
	store.PaymentPending: tournamentv1.PrizeState_PRIZE_STATE_PENDING,
	store.PaymentDone:    tournamentv1.PrizeState_PRIZE_STATE_PAID,
	store.PaymentFailed:  tournamentv1.PrizeState_PRIZE_STATE_REFUSED,
}

func (s *Server) prizes(ctx context.Context, id string) ([]*tournamentv1.Prize, error) {
	recs, err := s.store.Payments(ctx, id, int(entry.PayPrize), int(entry.PayVoucher))
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(recs, func(a, b store.PaymentRecord) int { return cmp.Compare(a.Place, b.Place) })
	var out []*tournamentv1.Prize
	for _, r := range recs {
		out = append(out, &tournamentv1.Prize{PlayerId: r.PlayerID, Place: int32(r.Place), Amount: r.Amount,
			Voucher: r.Kind == entry.PayVoucher, TargetTournamentId: r.TargetEventID, State: prizeStates[r.State], TransferId: r.TransferID,
			Deal: r.Note == dealNote})
	}
	return out, nil
}

func finishToProto(f standings.Finish) *tournamentv1.Finish {
	return &tournamentv1.Finish{PlayerId: f.PlayerID, Place: int32(f.Place), Shared: int32(f.Shared), Removed: f.Removed}
}

// GetResults returns the places, winner first, and the prizes.
func (s *Server) GetResults(ctx context.Context, req *tournamentv1.GetResultsRequest) (*tournamentv1.GetResultsResponse, error) {
	fins, err := s.store.Results(ctx, req.GetTournamentId())
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(fins, func(a, b standings.Finish) int {
		return cmp.Or(cmp.Compare(a.Place, b.Place), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	resp := &tournamentv1.GetResultsResponse{}
	for _, f := range fins {
		resp.Finishes = append(resp.Finishes, finishToProto(f))
	}
	if resp.Prizes, err = s.prizes(ctx, req.GetTournamentId()); err != nil {
		return nil, err
	}
	if resp.Bounties, err = s.bounties(ctx, req.GetTournamentId()); err != nil {
		return nil, err
	}
	// The prizes are public (TR-36); the transfers that paid them are the
	// winners' own, as on ListEntries.
	if viewer, player := asPlayer(ctx); player {
		for _, p := range resp.Prizes {
			if p.GetPlayerId() != viewer {
				p.TransferId = ""
			}
		}
		for _, b := range resp.Bounties {
			if b.GetPlayerId() != viewer {
				b.TransferId = ""
			}
		}
	}
	return resp, nil
}

// PayPrizes repeats the prize steps still pending, and those the wallet
// refused (the winner's account was missing, say), under their own keys:
// the last one paid finishes the event.
func (s *Server) PayPrizes(ctx context.Context, req *tournamentv1.PayPrizesRequest) (*tournamentv1.PayPrizesResponse, error) {
	id := req.GetTournamentId()
	recs, err := s.store.Payments(ctx, id, int(entry.PayPrize), int(entry.PayVoucher), int(entry.PayBounty))
	if err != nil {
		return nil, err
	}
	var pays []entry.Payment
	for _, r := range recs {
		switch r.State {
		case store.PaymentFailed:
			// Recording the refused step again makes it pending (AddPayment).
			if err := s.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
				return tx.AddPayment(r.Payment, r.Chips, r.CreatedAt)
			}); err != nil {
				return nil, err
			}
			pays = append(pays, r.Payment)
		case store.PaymentPending:
			pays = append(pays, r.Payment)
		}
	}
	s.desk.PayAll(ctx, id, pays)
	prizes, err := s.prizes(ctx, id)
	if err != nil {
		return nil, err
	}
	return &tournamentv1.PayPrizesResponse{Prizes: prizes}, nil
}

var penaltyFromProto = map[tournamentv1.PenaltyType]standings.PenaltyType{
	tournamentv1.PenaltyType_PENALTY_TYPE_WARNING:          standings.Warning,
	tournamentv1.PenaltyType_PENALTY_TYPE_MISSED_HANDS:     standings.MissedHands,
	tournamentv1.PenaltyType_PENALTY_TYPE_DEAD_HAND:        standings.DeadHand,
	tournamentv1.PenaltyType_PENALTY_TYPE_DISQUALIFICATION: standings.Disqualification,
	tournamentv1.PenaltyType_PENALTY_TYPE_EXPULSION:        standings.Expulsion,
}

// IssuePenalty records a penalty against the player's history (TR-32,
// TR-33, G-27); disqualification and expulsion place the player (TR-34).
func (s *Server) IssuePenalty(ctx context.Context, req *tournamentv1.IssuePenaltyRequest) (*tournamentv1.IssuePenaltyResponse, error) {
	id, player := req.GetTournamentId(), req.GetPlayerId()
	price, err := s.seatPrice(ctx, id)
	if err != nil {
		return nil, err
	}
	caller, _ := auth.FromContext(ctx)
	now := s.now()
	resp := &tournamentv1.IssuePenaltyResponse{}
	var pays []entry.Payment
	finished := false
	err = s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		resp.Finish, pays, finished = nil, nil, false
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		b, byPlayer, err := board(tx, t)
		if err != nil {
			return err
		}
		en, ok := byPlayer[player]
		if !ok || en.Status != entry.Active {
			return entry.ErrEntryNotActive.Withf("%s is not in play", player)
		}
		hist, err := tx.Penalties(player)
		if err != nil {
			return err
		}
		rec := standings.Record{PlayerID: player, Penalties: hist, Missing: en.HandsToMiss}
		p := standings.Penalty{Type: penaltyFromProto[req.GetType()], Reason: req.GetReason(), IssuedBy: caller.Subject,
			Hand: req.GetHand(), Rounds: int(req.GetRounds()), Issued: now, Override: req.GetOverride()}
		if err := rec.Issue(p, int(req.GetPlayersAtTable())); err != nil {
			return err
		}
		p = rec.Penalties[len(rec.Penalties)-1]
		en.HandsToMiss = rec.Missing
		if p.Type == standings.Disqualification || p.Type == standings.Expulsion {
			f, err := b.Remove(player, p.Type == standings.Expulsion)
			if err != nil {
				return err
			}
			if err := tx.AddFinishes([]standings.Finish{f}, now); err != nil {
				return err
			}
			resp.Finish = finishToProto(f)
			en.Status = entry.Busted
			byPlayer[player] = en
			_, ps, err := finishIfLast(tx, t, b, byPlayer, price, now)
			if err != nil {
				return err
			}
			pays = ps
			finished = t.Event.Status.PlayOver()
		}
		resp.HandsToMiss, resp.History = int32(en.HandsToMiss), int32(len(rec.Penalties))
		if err := tx.AddPenalty(player, p); err != nil {
			return err
		}
		return tx.PutEntry(en)
	})
	if err != nil {
		return nil, err
	}
	if finished {
		s.desk.PayAll(ctx, id, pays)
	}
	if resp.GetFinish() != nil {
		// Out of play (TR-34): the player leaves their table with their
		// chips, counted as removed, even when it ends the event; between
		// hands no hand's end may follow at a table left unable to deal
		// (TR-23, G-25).
		s.drive(ctx, "disqualification", id, s.directorSettle)
	}
	if resp.GetHandsToMiss() > 0 {
		// TR-33: the table deals the player dead for the hands to miss.
		key := fmt.Sprintf("trn/%s/penalty/%s/%d", id, player, resp.GetHistory())
		s.drive(ctx, "penalty", id, func(ctx context.Context, id string) error { return s.director.Absent(ctx, id, player, key) })
	}
	return resp, nil
}

// ReportHandStarted counts a hand for the missed-hand penalties of the
// players dealt in (TR-33) and names those who sit it out: penalised
// players and players who left (TR-35).
func (s *Server) ReportHandStarted(ctx context.Context, req *tournamentv1.ReportHandStartedRequest) (*tournamentv1.ReportHandStartedResponse, error) {
	now := s.now()
	resp := &tournamentv1.ReportHandStartedResponse{}
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		resp.SittingOut = nil
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		// G-26: during hand-for-hand a table deals once per round.
		if err := t.HandForHand.MayDeal(strconv.Itoa(int(req.GetTable()))); err != nil {
			return err
		}
		// TR-16: after the rebuy period each table counts its last rebuy
		// hands; a table the director runs has them counted from its
		// table.hand_ended (countRebuyHand), not twice.
		links, err := tx.Tables()
		if err != nil {
			return err
		}
		run := slices.ContainsFunc(links, func(l store.TableLink) bool { return l.Table == int(req.GetTable()) })
		if !run && t.Rules.Entry.Rebuys() && !now.Before(t.Event.StartsAt.Add(t.Rules.Entry.RebuyPeriod)) {
			if t.RebuyHands == nil {
				t.RebuyHands = map[int]int{}
			}
			t.RebuyHands[int(req.GetTable())]++
		}
		for _, player := range req.GetPlayerIds() {
			en, err := tx.Entry(player)
			if err != nil {
				return err
			}
			if en == nil || en.Status != entry.Active {
				continue
			}
			if en.Left {
				// TR-35: a player who left has blinds posted and a dead hand.
				resp.SittingOut = append(resp.SittingOut, player)
				continue
			}
			if en.HandsToMiss == 0 {
				continue
			}
			rec := standings.Record{Missing: en.HandsToMiss}
			if rec.HandStarted() {
				resp.SittingOut = append(resp.SittingOut, player)
			}
			en.HandsToMiss = rec.Missing
			if err := tx.PutEntry(*en); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// tables builds the balancer's view of the seated players.
func tables(ens []entry.Entry, size int, buttons map[int]int) map[int]balance.Table {
	out := map[int]balance.Table{}
	for _, en := range ens {
		if en.Status != entry.Active || en.Table == 0 {
			continue
		}
		tb, ok := out[en.Table]
		if !ok {
			tb = balance.Table{ID: strconv.Itoa(en.Table), MaxSeats: size, Seats: map[int]string{}, Button: buttons[en.Table]}
		}
		tb.Seats[en.Seat] = en.PlayerID
		out[en.Table] = tb
	}
	return out
}

// ErrNoSuchTable refuses an operation on a table with nobody at it.
var ErrNoSuchTable = fault.New(fault.Precondition, "TABLE_EMPTY", "no players are seated at that table")

// BalanceTables balances (TR-23, G-25) or breaks a table and records the
// new seats.
func (s *Server) BalanceTables(ctx context.Context, req *tournamentv1.BalanceTablesRequest) (*tournamentv1.BalanceTablesResponse, error) {
	now := s.now()
	resp := &tournamentv1.BalanceTablesResponse{}
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		resp.Moves, resp.Halted, resp.FinalTableButton = nil, nil, nil
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		ens, err := tx.Entries()
		if err != nil {
			return err
		}
		buttons := map[int]int{}
		for _, b := range req.GetButtons() {
			buttons[int(b.GetTable())] = int(b.GetButtonSeat())
		}
		byTable := tables(ens, t.Rules.SeatsPerTable, buttons)
		var list []balance.Table
		for _, n := range slices.Sorted(maps.Keys(byTable)) {
			list = append(list, byTable[n])
		}
		for _, h := range balance.Halted(list, balance.Policy{}) {
			n, _ := strconv.Atoi(h)
			resp.Halted = append(resp.Halted, int32(n))
		}
		var moves []balance.Move
		kind := "balance"
		if brk := int(req.GetBreakTable()); brk != 0 {
			if _, ok := byTable[brk]; !ok {
				return ErrNoSuchTable.With("table", strconv.Itoa(brk))
			}
			kind = "table_break"
			if moves, err = balance.Break(list, strconv.Itoa(brk), s.random); err != nil {
				return err
			}
			// G-26: a broken table no longer holds up the round.
			t.HandForHand.TableClosed(strconv.Itoa(brk))
		} else {
			moves = balance.Plan(list, balance.Policy{})
		}
		byPlayer := map[string]entry.Entry{}
		for _, en := range ens {
			byPlayer[en.PlayerID] = en
		}
		for _, m := range moves {
			en := byPlayer[m.PlayerID]
			en.Table, _ = strconv.Atoi(m.ToTable)
			en.Seat = m.ToSeat
			if err := tx.PutEntry(en); err != nil {
				return err
			}
			from, _ := strconv.Atoi(m.FromTable)
			resp.Moves = append(resp.Moves, &tournamentv1.Move{PlayerId: m.PlayerID, FromTable: int32(from), FromSeat: int32(m.FromSeat),
				ToTable: int32(en.Table), ToSeat: int32(en.Seat), RuleId: m.Rule})
		}
		if len(moves) == 0 {
			return nil
		}
		if err := tx.AddDraw(kind, moves, now); err != nil {
			return err
		}
		if kind == "table_break" && len(list) == 2 {
			// TR-07: the button is drawn again when the final table forms.
			var final []int
			n, _ := strconv.Atoi(moves[0].ToTable)
			for _, tb := range list {
				if tb.ID == moves[0].ToTable {
					for seat := range tb.Seats {
						final = append(final, seat)
					}
				}
			}
			for _, m := range moves {
				final = append(final, m.ToSeat)
			}
			slices.Sort(final)
			b, err := draw.Button(final, s.random)
			if err != nil {
				return err
			}
			bl := buttonLog{Table: n, Cards: map[string]string{}, Winner: b.Winner}
			pb := &tournamentv1.ButtonDraw{Table: int32(n), Cards: map[int32]string{}, ButtonSeat: int32(b.Winner)}
			for seat, c := range b.Cards {
				bl.Cards[strconv.Itoa(seat)] = c.String()
				pb.Cards[int32(seat)] = c.String()
			}
			resp.FinalTableButton = pb
			return tx.AddDraw("button", bl, now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// RaceChips runs a chip race at one table (TR-22, G-08) and logs it.
func (s *Server) RaceChips(ctx context.Context, req *tournamentv1.RaceChipsRequest) (*tournamentv1.RaceChipsResponse, error) {
	now := s.now()
	resp := &tournamentv1.RaceChipsResponse{}
	err := s.store.Update(ctx, req.GetTournamentId(), func(tx *store.Tx, t *store.Tournament) error {
		resp.Results = nil
		if t.Event.Status != event.Running {
			return ErrNotRunning
		}
		race := chiprace.Race{Removed: req.GetRemoved(), Into: req.GetInto(), Lowest: req.GetLowest()}
		for _, c := range req.GetSeats() {
			en, err := tx.Entry(c.GetPlayerId())
			if err != nil {
				return err
			}
			if en == nil || en.Status != entry.Active || en.Table != int(req.GetTable()) || en.Seat != int(c.GetSeat()) {
				return entry.ErrEntryNotActive.Withf("%s is not seated at table %d seat %d", c.GetPlayerId(), req.GetTable(), c.GetSeat())
			}
			race.Players = append(race.Players, chiprace.Player{Seat: int(c.GetSeat()), PlayerID: c.GetPlayerId(), Stack: c.GetStack(), Chips: c.GetChips()})
		}
		results, err := chiprace.Run(race, s.random)
		if err != nil {
			return err
		}
		for _, r := range results {
			pb := &tournamentv1.ChipRaceResult{Seat: int32(r.Seat), PlayerId: r.PlayerID, Won: r.Won, Stack: r.Stack}
			for _, c := range r.Cards {
				pb.Cards = append(pb.Cards, c.String())
			}
			resp.Results = append(resp.Results, pb)
		}
		return tx.AddDraw("chip_race", map[string]any{"table": req.GetTable(), "race": race, "results": results}, now)
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}
