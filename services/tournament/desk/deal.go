package desk

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/deal"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// DealNote marks a prize step whose amount a confirmed deal set (TR-38).
const DealNote = "deal"

// Deal refusals (TR-38) besides the proposal's own (package deal).
var (
	ErrDealTablesInHand = fault.Rule(fault.Precondition, "TR-38", "DEAL_TABLES_IN_HAND",
		"a hand is still being played or booked at the event's tables; they are held, so repeat the request once it is over")
	ErrDealOpen     = fault.Rule(fault.Precondition, "TR-38", "DEAL_OPEN", "a deal proposal is waiting for the players' answers")
	ErrNoDirector   = fault.Rule(fault.Precondition, "TR-38", "DEAL_TABLES_IN_HAND", "the event's tables are not driven by the tournament: their stacks are unknown")
	ErrDealSatelite = fault.Invalidf("tournament_id", "a satellite's prizes are entries to another event: there is no deal to make")
)

// inPlay returns the active entrants with their chips at the tables,
// largest stack first (then by player id). exact reports whether the
// books and the tables agree: every active entrant seated with chips and
// nobody else holding any.
func inPlay(ens []entry.Entry, seated director.Seated) (players []deal.Player, exact bool) {
	exact = !seated.InHand
	active := map[string]bool{}
	for _, en := range ens {
		if en.Status != entry.Active {
			continue
		}
		active[en.PlayerID] = true
		if st := seated.Stacks[en.PlayerID]; st > 0 {
			players = append(players, deal.Player{PlayerID: en.PlayerID, Stack: st})
		} else {
			exact = false // in transit, or busted and not booked yet
		}
	}
	for p, st := range seated.Stacks {
		if st > 0 && !active[p] {
			exact = false
		}
	}
	slices.SortFunc(players, func(a, b deal.Player) int {
		return cmp.Or(cmp.Compare(b.Stack, a.Stack), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	return players, exact
}

// prizesLeft returns the posted prizes of places 1..n, the places the
// players still in will take (TR-36, G-36: without the bounties).
func prizesLeft(pool int64, entrants int, t store.Tournament, n int) []int64 {
	prizes := t.Rules.Payouts.Prizes(entrants, t.Rules.PrizePool(pool, entrants))
	return prizes[:min(n, len(prizes))]
}

// dealAwards replaces the awards of the players in a confirmed deal with
// the deal's amounts (TR-38); without one the posted structure stands.
func dealAwards(tx *store.Tx, finishes []standings.Finish, awards []standings.Award) ([]standings.Award, error) {
	d, ok, err := tx.Deal()
	if err != nil || !ok || d.State != deal.Confirmed {
		return awards, err
	}
	in := map[string]int64{}
	for _, p := range d.Players {
		in[p.PlayerID] = p.Amount
	}
	var out []standings.Award
	for _, a := range awards {
		if _, ok := in[a.PlayerID]; !ok {
			out = append(out, a)
		}
	}
	for _, f := range finishes {
		if amount, ok := in[f.PlayerID]; ok {
			out = append(out, standings.Award{PlayerID: f.PlayerID, Place: f.Place, Amount: amount, Deal: true})
		}
	}
	return out, nil
}

// Quote is what a deal would give the players still in (TR-38): their
// stacks, largest first, the prizes left, and each player's chip chop and,
// up to deal.MaxICMPlayers, ICM shares (nil beyond).
type Quote struct {
	Players  []deal.Player
	Prizes   []int64
	ChipChop []int64
	ICM      []int64
}

// dealable loads an event that can make a deal, and refuses one that
// cannot.
func (d *Desk) dealable(ctx context.Context, id string) (store.Tournament, error) {
	t, err := d.store.Load(ctx, id)
	switch {
	case err != nil:
		return store.Tournament{}, err
	case t.Event.Status != event.Running:
		return store.Tournament{}, ErrNotRunning
	case t.Event.Format == event.Satellite:
		return store.Tournament{}, ErrDealSatelite
	case d.director == nil:
		return store.Tournament{}, ErrNoDirector
	}
	return t, nil
}

// CalculateDeal quotes ICM and the chip chop for the players still in,
// with their stacks as the tables hold them now (TR-38).
func (d *Desk) CalculateDeal(ctx context.Context, id string) (Quote, error) {
	t, err := d.dealable(ctx, id)
	if err != nil {
		return Quote{}, err
	}
	seated, err := d.director.Stacks(ctx, id)
	if err != nil {
		return Quote{}, err
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return Quote{}, err
	}
	players, _ := inPlay(ens, seated)
	pool, entrants, err := d.store.Contributions(ctx, id)
	if err != nil {
		return Quote{}, err
	}
	q := Quote{Players: players, Prizes: prizesLeft(pool, entrants, t, len(players))}
	stacks := make([]int64, len(players))
	for i, p := range players {
		stacks[i] = p.Stack
	}
	if q.ChipChop, err = deal.ChipChop(stacks, q.Prizes); err != nil {
		return Quote{}, err
	}
	if len(players) <= deal.MaxICMPlayers {
		if q.ICM, err = deal.ICM(stacks, q.Prizes); err != nil {
			return Quote{}, err
		}
		if q.ICM == nil {
			q.ICM = []int64{} // available, for nobody
		}
	}
	return q, nil
}

// ProposeDeal holds the tables and, once none is in a hand and the books
// agree with them, records a proposal over the prizes left (TR-38) by
// method (custom: the amounts by player), proposed by by. A proposal
// refused because a hand is still in play leaves the tables held after
// it — the floor's pause for the deal: repeated once they are at rest,
// it goes through with the players as that hand left them. Refused for
// any other reason, it lets the tables deal again.
func (d *Desk) ProposeDeal(ctx context.Context, id string, method deal.Method, custom map[string]int64, reason, by string) (_ deal.Proposal, err error) {
	if _, err := d.dealable(ctx, id); err != nil {
		return deal.Proposal{}, err
	}
	if last, ok, err := d.store.Deal(ctx, id); err != nil {
		return deal.Proposal{}, err
	} else if ok && last.State == deal.Proposed {
		return deal.Proposal{}, ErrDealOpen.With("deal_id", strconv.Itoa(last.ID))
	}
	// The hold comes first: once no table is in a hand, none starts one.
	if err := d.director.HoldForDeal(ctx, id); err != nil {
		return deal.Proposal{}, err
	}
	defer func() {
		if err != nil && !errors.Is(err, ErrDealTablesInHand) && !errors.Is(err, ErrDealOpen) {
			d.drive(ctx, "deal refused", id, d.director.ReleaseDeal)
		}
	}()
	seated, err := d.director.Stacks(ctx, id)
	if err != nil {
		return deal.Proposal{}, err
	}
	return running(ctx, d, id, func(tx *store.Tx, t *store.Tournament, now time.Time) (deal.Proposal, error) {
		last, ok, err := tx.Deal()
		if err != nil {
			return deal.Proposal{}, err
		}
		if ok && last.State == deal.Proposed {
			return deal.Proposal{}, ErrDealOpen.With("deal_id", strconv.Itoa(last.ID))
		}
		ens, err := tx.Entries()
		if err != nil {
			return deal.Proposal{}, err
		}
		players, exact := inPlay(ens, seated)
		if !exact || len(t.PendingKnockouts) > 0 {
			return deal.Proposal{}, ErrDealTablesInHand
		}
		pool, entrants, err := tx.Contributions()
		if err != nil {
			return deal.Proposal{}, err
		}
		out, err := deal.Propose(last.ID+1, method, players, prizesLeft(pool, entrants, *t, len(players)), custom, by, now)
		if err != nil {
			return deal.Proposal{}, err
		}
		if err := tx.PutDeal(out); err != nil {
			return deal.Proposal{}, err
		}
		return out, tx.AddAudit(by, "deal_proposed", map[string]any{"deal": out, "reason": reason}, now)
	})
}

// openDeal reads the proposal in force, which must be dealID.
func openDeal(tx *store.Tx, dealID int) (deal.Proposal, error) {
	d, ok, err := tx.Deal()
	if err != nil {
		return deal.Proposal{}, err
	}
	if !ok || d.ID != dealID {
		return deal.Proposal{}, deal.ErrNotOpen.Withf("deal %d is not the proposal in force", dealID)
	}
	return d, nil
}

// AgreeDeal records a player's answer, given by by; a refusal lets the
// tables deal again.
func (d *Desk) AgreeDeal(ctx context.Context, id string, dealID int, player string, agree bool, by string) (deal.Proposal, error) {
	now := d.now()
	var p deal.Proposal
	err := d.store.Update(ctx, id, func(tx *store.Tx, _ *store.Tournament) error {
		var err error
		if p, err = openDeal(tx, dealID); err != nil {
			return err
		}
		if err := p.Answer(player, agree, now); err != nil {
			return err
		}
		if err := tx.PutDeal(p); err != nil {
			return err
		}
		return tx.AddAudit(by, "deal_answer", map[string]any{"deal_id": p.ID, "player_id": player, "agree": agree}, now)
	})
	if err != nil {
		return deal.Proposal{}, err
	}
	if p.State == deal.Declined {
		d.drive(ctx, "deal declined", id, d.director.ReleaseDeal)
	}
	return p, nil
}

// ConfirmDeal confirms a deal every player agreed to: the players in it
// are placed by their stacks (G-37), the prizes are recorded — the deal's
// amounts for them, the posted structure for the others — with each
// player's own head in a knockout event (G-37), and the wallet is asked
// to pay them under their keys.
func (d *Desk) ConfirmDeal(ctx context.Context, id string, dealID int, reason, by string) (deal.Proposal, error) {
	var p deal.Proposal
	// The deal places nobody in a satellite's seats: the price is unused.
	err := d.book(ctx, id, func(tx *store.Tx, t *store.Tournament, _ int64, now time.Time) ([]entry.Payment, error) {
		if t.Event.Status != event.Running {
			return nil, ErrNotRunning
		}
		var err error
		if p, err = openDeal(tx, dealID); err != nil {
			return nil, err
		}
		if err := p.Confirm(by, now); err != nil {
			return nil, err
		}
		if err := tx.PutDeal(p); err != nil {
			return nil, err
		}
		if err := tx.AddAudit(by, "deal_confirmed", map[string]any{"deal": p, "reason": reason}, now); err != nil {
			return nil, err
		}
		b, byPlayer, err := board(tx, t)
		if err != nil {
			return nil, err
		}
		// G-37: the chip leader takes first place, the others go out
		// together, placed by their stacks as in one hand (TR-37).
		t.HandForHand.Stop()
		var (
			kos    []standings.Knockout
			others []string
		)
		for _, dp := range p.Players[1:] {
			kos = append(kos, standings.Knockout{PlayerID: dp.PlayerID, TableID: "deal", StartStack: dp.Stack})
			others = append(others, dp.PlayerID)
		}
		own, err := collectHeads(tx, t, others, byPlayer, now)
		if err != nil {
			return nil, err
		}
		out, err := knockOut(tx, t, b, byPlayer, kos, 0, now)
		if err != nil {
			return nil, err
		}
		return append(own, out.pays...), nil
	})
	if err != nil {
		return deal.Proposal{}, err
	}
	return p, nil
}

// Deal returns the last proposal; ok is false when there was none.
func (d *Desk) Deal(ctx context.Context, id string) (p deal.Proposal, ok bool, err error) {
	return d.store.Deal(ctx, id)
}
