package desk

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/fault"
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
	// The event reads finished only once every prize is paid (PayAll).
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
			p.Note = DealNote
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

// seatPrice returns what one satellite seat costs: the target event's
// entry (TR-19).
func (d *Desk) seatPrice(ctx context.Context, id string) (int64, error) {
	t, err := d.store.Load(ctx, id)
	if err != nil || t.Event.Format != event.Satellite {
		return 0, err
	}
	target, err := d.store.Load(ctx, t.Event.TargetEventID)
	if err != nil {
		return 0, err
	}
	return target.Event.BuyIn.Total(), nil
}

// Knockout is a player the floor reports knocked out (TR-37).
type Knockout struct {
	standings.Knockout
	// DeclinedRebuy is set when the player declined a rebuy they may
	// still take (TR-13).
	DeclinedRebuy bool
	// EliminatedBy names the players who won the player's head (G-36).
	EliminatedBy []string
}

// Knocked is what a knock-out did: the places given, the winner's last
// when the event finished, and then its prizes.
type Knocked struct {
	Finishes []standings.Finish
	// Deferred is set when hand-for-hand holds the places for the round.
	Deferred bool
	Finished bool
	Prizes   []store.PaymentRecord
}

// RecordKnockouts places knocked-out players (TR-37), gives their heads
// to the players named (G-36) and finishes the event when one is left;
// by is the floor, for the audit.
func (d *Desk) RecordKnockouts(ctx context.Context, id string, reported []Knockout, by string) (Knocked, error) {
	var res Knocked
	err := d.book(ctx, id, func(tx *store.Tx, t *store.Tournament, price int64, now time.Time) ([]entry.Payment, error) {
		res = Knocked{}
		if t.Event.Status != event.Running {
			return nil, ErrNotRunning
		}
		b, byPlayer, err := board(tx, t)
		if err != nil {
			return nil, err
		}
		var (
			kos         []standings.Knockout
			eliminators [][]string
		)
		if len(reported) >= activeCount(byPlayer) {
			return nil, standings.ErrTooManyOut.Withf("%d knocked out with %d in play", len(reported), activeCount(byPlayer))
		}
		seen := map[string]bool{}
		for _, k := range reported {
			en, ok := byPlayer[k.PlayerID]
			if !ok || en.Status != entry.Active || seen[en.PlayerID] {
				return nil, entry.ErrEntryNotActive.Withf("%s is not in play", k.PlayerID).With("player_id", k.PlayerID)
			}
			if err := entry.KnockOut(t.Event, t.Rules.Entry, en, entry.Table{Now: now, HandsSincePeriodEnd: handsSincePeriodEnd(t, en, 0)},
				k.DeclinedRebuy); err != nil {
				return nil, err
			}
			seen[en.PlayerID] = true
			kos = append(kos, k.Knockout)
			eliminators = append(eliminators, k.EliminatedBy)
		}
		// G-36: a head the floor saw won goes to the players it names, who
		// must be in play and not out in the same report.
		for _, by := range eliminators {
			for _, p := range by {
				if en, ok := byPlayer[p]; !ok || en.Status != entry.Active || seen[p] {
					return nil, entry.ErrEntryNotActive.Withf("eliminator %s is not in play", p).With("player_id", p)
				}
			}
		}
		bounties, err := awardFloorBounties(tx, t, kos, eliminators, byPlayer, by, now)
		if err != nil {
			return nil, err
		}
		out, err := knockOut(tx, t, b, byPlayer, kos, price, now)
		if err != nil {
			return nil, err
		}
		res = Knocked{Finishes: out.finishes, Deferred: out.deferred, Finished: t.Event.Status.PlayOver()}
		return append(bounties, out.pays...), nil
	})
	if err != nil {
		return Knocked{}, err
	}
	if res.Finished {
		if res.Prizes, err = d.Prizes(ctx, id); err != nil {
			return Knocked{}, err
		}
	} else {
		// Taken out between hands: no hand's end may follow at a table
		// left unable to deal (TR-23, G-25).
		d.drive(ctx, "knock-outs", id, d.directorSettle)
	}
	return res, nil
}

// directorSettle has the director balance or break tables that no hand's
// end will (TR-23, G-25): the floor took players out of play between hands.
func (d *Desk) directorSettle(ctx context.Context, id string) error {
	return d.director.Settle(ctx, id)
}

// Prizes returns the event's prize and voucher steps by place.
func (d *Desk) Prizes(ctx context.Context, id string) ([]store.PaymentRecord, error) {
	recs, err := d.store.Payments(ctx, id, int(entry.PayPrize), int(entry.PayVoucher))
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(recs, func(a, b store.PaymentRecord) int { return cmp.Compare(a.Place, b.Place) })
	return recs, nil
}

// Results is an event's results: the places, winner first, the prizes by
// place and the bounties (G-36).
type Results struct {
	Finishes []standings.Finish
	Prizes   []store.PaymentRecord
	Bounties []store.PaymentRecord
}

// Results returns the places, winner first, the prizes and the bounties.
func (d *Desk) Results(ctx context.Context, id string) (Results, error) {
	fins, err := d.store.Results(ctx, id)
	if err != nil {
		return Results{}, err
	}
	slices.SortStableFunc(fins, func(a, b standings.Finish) int {
		return cmp.Or(cmp.Compare(a.Place, b.Place), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	res := Results{Finishes: fins}
	if res.Prizes, err = d.Prizes(ctx, id); err != nil {
		return Results{}, err
	}
	if res.Bounties, err = d.store.Payments(ctx, id, int(entry.PayBounty)); err != nil {
		return Results{}, err
	}
	return res, nil
}

// PayPrizes repeats the prize steps still pending, and those the wallet
// refused (the winner's account was missing, say), under their own keys:
// the last one paid finishes the event. It returns the prizes.
func (d *Desk) PayPrizes(ctx context.Context, id string) ([]store.PaymentRecord, error) {
	recs, err := d.store.Payments(ctx, id, int(entry.PayPrize), int(entry.PayVoucher), int(entry.PayBounty))
	if err != nil {
		return nil, err
	}
	var pays []entry.Payment
	for _, r := range recs {
		switch r.State {
		case store.PaymentFailed:
			// Recording the refused step again makes it pending (AddPayment).
			if err := d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
				return tx.AddPayment(r.Payment, r.Chips, r.CreatedAt)
			}); err != nil {
				return nil, err
			}
			pays = append(pays, r.Payment)
		case store.PaymentPending:
			pays = append(pays, r.Payment)
		}
	}
	d.PayAll(ctx, id, pays)
	return d.Prizes(ctx, id)
}

// Penalised is what a penalty did: the place of a player it took out of
// play (TR-34), the hands they now miss and their penalties so far.
type Penalised struct {
	Finish      *standings.Finish
	HandsToMiss int
	History     int
}

// IssuePenalty records a penalty against the player's history (TR-32,
// TR-33, G-27); disqualification and expulsion place the player (TR-34).
// The penalty's time is the desk's.
func (d *Desk) IssuePenalty(ctx context.Context, id, player string, p standings.Penalty, playersAtTable int) (Penalised, error) {
	var res Penalised
	err := d.book(ctx, id, func(tx *store.Tx, t *store.Tournament, price int64, now time.Time) (pays []entry.Payment, err error) {
		res = Penalised{}
		if t.Event.Status != event.Running {
			return nil, ErrNotRunning
		}
		b, byPlayer, err := board(tx, t)
		if err != nil {
			return nil, err
		}
		en, ok := byPlayer[player]
		if !ok || en.Status != entry.Active {
			return nil, entry.ErrEntryNotActive.Withf("%s is not in play", player)
		}
		hist, err := tx.Penalties(player)
		if err != nil {
			return nil, err
		}
		rec := standings.Record{PlayerID: player, Penalties: hist, Missing: en.HandsToMiss}
		p.Issued = now
		if err := rec.Issue(p, playersAtTable); err != nil {
			return nil, err
		}
		given := rec.Penalties[len(rec.Penalties)-1]
		en.HandsToMiss = rec.Missing
		if given.Type == standings.Disqualification || given.Type == standings.Expulsion {
			f, err := b.Remove(player, given.Type == standings.Expulsion)
			if err != nil {
				return nil, err
			}
			if err := tx.AddFinishes([]standings.Finish{f}, now); err != nil {
				return nil, err
			}
			res.Finish = &f
			en.Status = entry.Busted
			byPlayer[player] = en
			// Prizes to pay only when it finished the event.
			if _, pays, err = finishIfLast(tx, t, b, byPlayer, price, now); err != nil {
				return nil, err
			}
		}
		res.HandsToMiss, res.History = en.HandsToMiss, len(rec.Penalties)
		if err := tx.AddPenalty(player, given); err != nil {
			return nil, err
		}
		return pays, tx.PutEntry(en)
	})
	if err != nil {
		return Penalised{}, err
	}
	if res.Finish != nil {
		// Out of play (TR-34): the player leaves their table with their
		// chips, counted as removed, even when it ends the event; between
		// hands no hand's end may follow at a table left unable to deal
		// (TR-23, G-25).
		d.drive(ctx, "disqualification", id, d.directorSettle)
	}
	if res.HandsToMiss > 0 {
		// TR-33: the table deals the player dead for the hands to miss.
		key := "trn/" + id + "/penalty/" + player + "/" + strconv.Itoa(res.History)
		d.drive(ctx, "penalty", id, func(ctx context.Context, id string) error { return d.director.Absent(ctx, id, player, key) })
	}
	return res, nil
}

// HandStarted counts a hand of a table for the missed-hand penalties of
// the players dealt in (TR-33) and returns those who sit it out:
// penalised players and players who left (TR-35).
func (d *Desk) HandStarted(ctx context.Context, id string, table int, players []string) ([]string, error) {
	return running(ctx, d, id, func(tx *store.Tx, t *store.Tournament, now time.Time) (out []string, _ error) {
		// G-26: during hand-for-hand a table deals once per round.
		if err := t.HandForHand.MayDeal(strconv.Itoa(table)); err != nil {
			return nil, err
		}
		// TR-16: after the rebuy period each table counts its last rebuy
		// hands; a table the director runs has them counted from its
		// table.hand_ended (countRebuyHand), not twice.
		links, err := tx.Tables()
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(links, func(l store.TableLink) bool { return l.Table == table }) {
			countRebuyHand(t, table, now)
		}
		for _, player := range players {
			sits, err := sitsOut(tx, player)
			if err != nil {
				return nil, err
			}
			if sits {
				out = append(out, player)
			}
		}
		return out, nil
	})
}

// sitsOut counts a hand started for the player's missed-hand penalty
// (TR-33) and reports whether they sit it out, penalised or gone (TR-35).
func sitsOut(tx *store.Tx, player string) (bool, error) {
	en, err := tx.Entry(player)
	if err != nil || en == nil || en.Status != entry.Active {
		return false, err
	}
	if en.Left || en.HandsToMiss == 0 {
		// TR-35: a player who left has blinds posted and a dead hand.
		return en.Left, nil
	}
	rec := standings.Record{Missing: en.HandsToMiss}
	sits := rec.HandStarted()
	en.HandsToMiss = rec.Missing
	return sits, tx.PutEntry(*en)
}

// ErrNoSuchTable refuses an operation on a table with nobody at it.
var ErrNoSuchTable = fault.New(fault.Precondition, "TABLE_EMPTY", "no players are seated at that table")

// Button is one table's button draw (TR-07, G-28).
type Button struct {
	Table int
	draw.ButtonResult
}

// log is the draw as logged.
func (b Button) log() buttonLog {
	bl := buttonLog{Table: b.Table, Cards: map[string]string{}, Winner: b.Winner}
	for seat, c := range b.Cards {
		bl.Cards[strconv.Itoa(seat)] = c.String()
	}
	return bl
}

// Balanced is what BalanceTables did: the moves made, the tables halted
// short (G-25) and, when a break formed the final table, its button draw.
type Balanced struct {
	Moves       []balance.Move
	Halted      []int
	FinalButton *Button
}

// BalanceTables balances (TR-23, G-25) or, with breakTable, breaks a table
// and records the new seats; buttons are the tables' buttons by number.
func (d *Desk) BalanceTables(ctx context.Context, id string, breakTable int, buttons map[int]int) (Balanced, error) {
	return running(ctx, d, id, func(tx *store.Tx, t *store.Tournament, now time.Time) (res Balanced, _ error) {
		ens, err := tx.Entries()
		if err != nil {
			return Balanced{}, err
		}
		byTable := tables(ens, t.Rules.SeatsPerTable, buttons)
		var list []balance.Table
		for _, n := range slices.Sorted(maps.Keys(byTable)) {
			list = append(list, byTable[n])
		}
		for _, h := range balance.Halted(list, balance.Policy{}) {
			n, _ := strconv.Atoi(h)
			res.Halted = append(res.Halted, n)
		}
		kind := "balance"
		if breakTable != 0 {
			if _, ok := byTable[breakTable]; !ok {
				return Balanced{}, ErrNoSuchTable.With("table", strconv.Itoa(breakTable))
			}
			kind = "table_break"
			if res.Moves, err = balance.Break(list, strconv.Itoa(breakTable), d.random); err != nil {
				return Balanced{}, err
			}
			// G-26: a broken table no longer holds up the round.
			t.HandForHand.TableClosed(strconv.Itoa(breakTable))
		} else {
			res.Moves = balance.Plan(list, balance.Policy{})
		}
		byPlayer := map[string]entry.Entry{}
		for _, en := range ens {
			byPlayer[en.PlayerID] = en
		}
		for _, m := range res.Moves {
			en := byPlayer[m.PlayerID]
			en.Table, _ = strconv.Atoi(m.ToTable)
			en.Seat = m.ToSeat
			if err := tx.PutEntry(en); err != nil {
				return Balanced{}, err
			}
		}
		if len(res.Moves) == 0 {
			return res, nil
		}
		if err := tx.AddDraw(kind, res.Moves, now); err != nil {
			return Balanced{}, err
		}
		if kind == "table_break" && len(list) == 2 {
			// TR-07: the button is drawn again when the final table forms.
			b, err := finalButton(list, res.Moves, d.random)
			if err != nil {
				return Balanced{}, err
			}
			res.FinalButton = &b
			return res, tx.AddDraw("button", b.log(), now)
		}
		return res, nil
	})
}

// finalButton draws the button of the table a break of one of two tables
// moved its players to (TR-07).
func finalButton(list []balance.Table, moves []balance.Move, src rand.Source) (Button, error) {
	var final []int
	n, _ := strconv.Atoi(moves[0].ToTable)
	for _, tb := range list {
		if tb.ID == moves[0].ToTable {
			final = slices.AppendSeq(final, maps.Keys(tb.Seats))
		}
	}
	for _, m := range moves {
		final = append(final, m.ToSeat)
	}
	slices.Sort(final)
	b, err := draw.Button(final, src)
	return Button{Table: n, ButtonResult: b}, err
}

// RaceChips runs a chip race at one table (TR-22, G-08) and logs it; the
// race's players must be seated there.
func (d *Desk) RaceChips(ctx context.Context, id string, table int, race chiprace.Race) ([]chiprace.Result, error) {
	return running(ctx, d, id, func(tx *store.Tx, _ *store.Tournament, now time.Time) ([]chiprace.Result, error) {
		for _, p := range race.Players {
			en, err := tx.Entry(p.PlayerID)
			if err != nil {
				return nil, err
			}
			if en == nil || en.Status != entry.Active || en.Table != table || en.Seat != p.Seat {
				return nil, entry.ErrEntryNotActive.Withf("%s is not seated at table %d seat %d", p.PlayerID, table, p.Seat)
			}
		}
		results, err := chiprace.Run(race, d.random)
		if err != nil {
			return nil, err
		}
		return results, tx.AddDraw("chip_race", map[string]any{"table": table, "race": race, "results": results}, now)
	})
}
