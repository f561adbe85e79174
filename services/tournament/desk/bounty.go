package desk

import (
	"time"

	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/tournament/bounty"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// head is a player's head now: the event's bounty unless a progressive
// knockout added to it (G-36).
func head(t *store.Tournament, heads map[string]int64, player string) int64 {
	if h, ok := heads[player]; ok {
		return h
	}
	return t.Rules.Bounty.Amount
}

// bountyPayment is the step that pays cash of busted's n-th entry's head
// to winner (busted == winner: the winner collecting their own head).
func bountyPayment(t *store.Tournament, busted string, n int, winner string, cash int64) entry.Payment {
	return entry.Payment{Kind: entry.PayBounty, Key: entry.BountyKey(t.Event.ID, busted, n, winner), EventID: t.Event.ID,
		PlayerID: winner, Currency: t.Event.BuyIn.Currency, Amount: cash, Note: busted}
}

// awardBounties gives the heads of the players a hand knocked out to the
// winners of the pots they were in (G-36), before the knock-outs are
// booked: each winner's cash is a payment recorded here (the head added,
// in a progressive knockout, as its chips) and their own head grows; the
// busted players' heads come off the books. A head no pot winner took
// stays in the pool, unclaimed, for SettlePrizePool.
func awardBounties(tx *store.Tx, t *store.Tournament, msg *tablev1.HandEnded, kos []standings.Knockout,
	byPlayer map[string]entry.Entry, now time.Time) ([]entry.Payment, error) {
	if !t.Rules.Bounty.On() || len(kos) == 0 {
		return nil, nil
	}
	heads, err := tx.Heads()
	if err != nil {
		return nil, err
	}
	seatOf, playerAt := map[string]int{}, map[int]string{}
	for _, st := range msg.GetStacks() {
		seatOf[st.GetPlayerId()], playerAt[int(st.GetSeat())] = int(st.GetSeat()), st.GetPlayerId()
	}
	var pots []bounty.Pot
	for _, p := range msg.GetPots() {
		bp := bounty.Pot{}
		for _, s := range p.GetEligibleSeats() {
			bp.Eligible = append(bp.Eligible, int(s))
		}
		for _, w := range p.GetWinners() {
			bp.Winners = append(bp.Winners, bounty.Share{Seat: int(w.GetSeat()), Amount: w.GetAmount()})
		}
		pots = append(pots, bp)
	}
	var pays []entry.Payment
	for _, k := range kos {
		ps, err := creditHead(tx, t, heads, k, bounty.Eliminators(seatOf[k.PlayerID], pots), playerAt, byPlayer,
			"table:"+msg.GetTableId(), now)
		if err != nil {
			return nil, err
		}
		pays = append(pays, ps...)
	}
	return pays, nil
}

// awardFloorBounties gives the heads of the players the floor knocked out
// (RecordKnockouts) to the players it names as their eliminators, in equal
// shares (G-36) — what a table's knock-out credits by pot share. A player
// with none named leaves their head unclaimed in the pool, as a table's
// knock-out nobody else won does; either way the head comes off the books.
func awardFloorBounties(tx *store.Tx, t *store.Tournament, kos []standings.Knockout, eliminators [][]string,
	byPlayer map[string]entry.Entry, floor string, now time.Time) ([]entry.Payment, error) {
	if !t.Rules.Bounty.On() || len(kos) == 0 {
		return nil, nil
	}
	heads, err := tx.Heads()
	if err != nil {
		return nil, err
	}
	var pays []entry.Payment
	for i, k := range kos {
		var by []bounty.Share
		playerAt := map[int]string{}
		for n, p := range eliminators[i] {
			by = append(by, bounty.Share{Seat: n + 1, Amount: 1})
			playerAt[n+1] = p
		}
		ps, err := creditHead(tx, t, heads, k, by, playerAt, byPlayer, floor, now)
		if err != nil {
			return nil, err
		}
		pays = append(pays, ps...)
	}
	return pays, nil
}

// creditHead splits a knocked-out player's head among the shares by
// (seats that playerAt names), adds the progressive half to the winners'
// heads, records the cash payments and the audit, and takes the head off
// the books (G-36).
func creditHead(tx *store.Tx, t *store.Tournament, heads map[string]int64, k standings.Knockout, by []bounty.Share,
	playerAt map[int]string, byPlayer map[string]entry.Entry, auditActor string, now time.Time) ([]entry.Payment, error) {
	h := head(t, heads, k.PlayerID)
	awards := bounty.Split(h, t.Rules.Bounty.Progressive, by)
	record := map[string]any{"knocked_out": k.PlayerID, "head": h, "table": k.TableID, "hand": k.Hand}
	var (
		won  []map[string]any
		pays []entry.Payment
	)
	for _, a := range awards {
		winner := playerAt[a.Seat]
		if winner == "" {
			continue
		}
		if a.Head > 0 {
			heads[winner] = head(t, heads, winner) + a.Head
			if err := tx.SetHead(winner, heads[winner]); err != nil {
				return nil, err
			}
		}
		won = append(won, map[string]any{"player_id": winner, "cash": a.Cash, "head_added": a.Head})
		if a.Cash == 0 {
			continue
		}
		p := bountyPayment(t, k.PlayerID, byPlayer[k.PlayerID].Number(), winner, a.Cash)
		if err := tx.AddPayment(p, a.Head, now); err != nil {
			return nil, err
		}
		pays = append(pays, p)
	}
	delete(heads, k.PlayerID)
	if err := tx.ClearHead(k.PlayerID); err != nil {
		return nil, err
	}
	record["won_by"] = won
	if len(won) == 0 {
		record["unclaimed"] = true
	}
	if err := tx.AddAudit(auditActor, "bounty", record, now); err != nil {
		return nil, err
	}
	return pays, nil
}

// collectHeads pays players their own heads (G-36): the winner at the
// end, and the players in a confirmed deal (TR-38).
func collectHeads(tx *store.Tx, t *store.Tournament, players []string, byPlayer map[string]entry.Entry, now time.Time) ([]entry.Payment, error) {
	if !t.Rules.Bounty.On() {
		return nil, nil
	}
	heads, err := tx.Heads()
	if err != nil {
		return nil, err
	}
	var pays []entry.Payment
	for _, p := range players {
		h := head(t, heads, p)
		if err := tx.ClearHead(p); err != nil {
			return nil, err
		}
		if h == 0 {
			continue
		}
		pay := bountyPayment(t, p, byPlayer[p].Number(), p, h)
		if err := tx.AddPayment(pay, 0, now); err != nil {
			return nil, err
		}
		pays = append(pays, pay)
	}
	return pays, nil
}
