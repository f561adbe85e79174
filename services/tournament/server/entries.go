package server

import (
	"context"
	"fmt"
	"slices"
	"time"

	"math/rand/v2"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/event"
	"github.com/cardroom/cardroom/services/tournament/standings"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// ErrNotYourEntry refuses a player acting for another player's entry.
var ErrNotYourEntry = fault.Rule(fault.Forbidden, "TR-05", "ENTRY_NOT_PERSONAL", "a player may act only for their own entry")

// actFor lets a request acting as a player act only for themselves; one
// acting in any other role the RPC allows (cashier, floor, admin) acts
// for anyone. The role is the one platform/rpc chose for the request, so a
// token that also holds a staff role acts as the player on these routes.
func actFor(ctx context.Context, player string) error {
	c, ok := auth.FromContext(ctx)
	if !ok {
		return fault.New(fault.Unauthenticated, "UNAUTHENTICATED", "no caller")
	}
	if c.Is(auth.Player) && c.Subject != player {
		return ErrNotYourEntry.With("player_id", player)
	}
	return nil
}

func (s *Server) now() time.Time { return s.clock.Now().UTC().Truncate(time.Millisecond) }

// RegisterPlayer records the entry and its payment in one transaction,
// asks the wallet, and records the answer (TR-04, G-23). An entry whose
// payment is still pending is finished by the same call.
func (s *Server) RegisterPlayer(ctx context.Context, req *tournamentv1.RegisterPlayerRequest) (*tournamentv1.RegisterPlayerResponse, error) {
	id, player := req.GetTournamentId(), req.GetPlayerId()
	if err := actFor(ctx, player); err != nil {
		return nil, err
	}
	now := s.now()
	var pay entry.Payment
	err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		existing, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if t.Rules.Day2 != nil {
			return ErrEnterAFlight // issue 13: its field is its flights' survivors
		}
		if existing != nil && existing.Status == entry.Paying {
			p, err := pending(tx, player, entry.PayEntry)
			pay = p
			return err
		}
		n, err := tx.Entrants()
		if err != nil {
			return err
		}
		en, p, err := entry.Register(t.Event, t.Rules.Entry, n, existing, player, req.GetVoucherId(), now)
		if err != nil {
			return err
		}
		pay = p
		if err := tx.PutEntry(en); err != nil {
			return err
		}
		return tx.AddPayment(p, 0, now)
	})
	if err != nil {
		return nil, err
	}
	release := s.issuing(id)
	defer release()
	en, _, err := s.settle(ctx, id, []entry.Payment{pay})
	if err != nil {
		return nil, err
	}
	if en.Table > 0 {
		// A late registration (G-23) was seated by the draw: the director
		// seats it at the table.
		s.drive(ctx, "late seat", id, func(ctx context.Context, id string) error { return s.director.SeatLate(ctx, id, player) })
	}
	pb, err := s.entryWithMoney(ctx, id, en)
	if err != nil {
		return nil, err
	}
	return &tournamentv1.RegisterPlayerResponse{Entry: pb}, nil
}

// pending returns the player's pending step of a kind.
func pending(tx *store.Tx, player string, kind entry.Kind) (entry.Payment, error) {
	ps, err := tx.PendingPayments(player)
	if err != nil {
		return entry.Payment{}, err
	}
	for _, p := range ps {
		if p.Kind == kind {
			return p.Payment, nil
		}
	}
	return entry.Payment{}, fault.New(fault.Internal, "PAYMENT_MISSING", "an entry is paying without a pending payment")
}

// settle runs saga steps in order: it asks the wallet for each and records
// the answer with its effect on the entry in one transaction. A refused
// step fails the ones after it without asking. It returns the entry after
// the steps and the total chips they gave.
func (s *Server) settle(ctx context.Context, id string, pays []entry.Payment) (entry.Entry, int64, error) {
	var firstErr error
	var en entry.Entry
	var chips int64
	for _, p := range pays {
		out := outcome{refused: true, err: firstErr}
		if firstErr == nil {
			out = s.pay(ctx, p)
		}
		if !out.done && !out.refused {
			// The wallet did not answer: the step stays pending for a retry.
			return entry.Entry{}, 0, out.err
		}
		err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
			failure := ""
			if out.err != nil {
				failure = out.err.Error()
			}
			rec, _, err := tx.Payment(p.Key)
			if err != nil {
				return err
			}
			fresh, err := tx.SettlePayment(p.Key, out.done, out.transferID, failure)
			if err != nil {
				return err
			}
			cur, err := tx.Entry(p.PlayerID)
			if err != nil || cur == nil {
				return err
			}
			en = *cur
			if !fresh {
				// Another call settled it first; report what it recorded.
				if rec.State == store.PaymentDone {
					chips += rec.Chips
				}
				return nil
			}
			if out.done {
				chips += rec.Chips
			}
			keep, err := applyPayment(tx, t, &en, p, out.done, out.transferID, s.random)
			if err != nil || !keep {
				return err
			}
			return tx.PutEntry(en)
		})
		if err != nil {
			return entry.Entry{}, 0, err
		}
		if out.refused && firstErr == nil {
			firstErr = out.err
		}
	}
	if firstErr != nil {
		return entry.Entry{}, 0, firstErr
	}
	return en, chips, nil
}

// applyPayment changes the entry for a settled step; keep is false when
// the entry is gone.
func applyPayment(tx *store.Tx, t *store.Tournament, en *entry.Entry, p entry.Payment, done bool, transferID string, src rand.Source) (keep bool, err error) {
	switch p.Kind {
	case entry.PayEntry:
		if !done {
			// Nothing was paid: the entry never existed, or goes back to
			// its withdrawn or busted state.
			if en.Reentries > 0 && en.Status == entry.Paying {
				en.Status = entry.Busted
				en.Reentries--
				return true, nil
			}
			en.Status = entry.Unregistered
			if en.Withdrawals == 0 {
				return false, tx.DeleteEntry(en.PlayerID)
			}
			return true, nil
		}
		en.Paid(transferID)
		if t.Event.Status == event.Running {
			if err := intoField(tx, t, *en); err != nil {
				return false, err
			}
			// A late registration (G-23) takes a seat at once.
			return true, seatLate(tx, t, en, src)
		}
	case entry.PayRebuy, entry.PayAddOn:
		if done {
			en.Settled(p)
		}
	}
	return true, nil
}

// intoField renumbers the places given when a late entry (G-23) joins a
// running field: a new entrant moves every place given one down; a
// re-entry takes the player's last place back and moves the better ones
// down, or, out in a hand-for-hand round not yet placed (TR-37), leaves
// the round's knock-outs. Either way the next knock-out takes a place
// nobody holds.
func intoField(tx *store.Tx, t *store.Tournament, en entry.Entry) error {
	if en.Reentries > 0 {
		if i := slices.IndexFunc(t.PendingKnockouts, func(k standings.Knockout) bool { return k.PlayerID == en.PlayerID }); i >= 0 {
			t.PendingKnockouts = slices.Delete(t.PendingKnockouts, i, i+1)
			return nil
		}
	}
	fs, err := tx.Finishes()
	if err != nil || len(fs) == 0 {
		return err
	}
	if en.Reentries > 0 {
		return tx.RenumberFinishes(standings.Reenter(fs, en.PlayerID))
	}
	return tx.RenumberFinishes(standings.Grow(fs))
}

// UnregisterPlayer withdraws an entry before the start (TR-04): the entry
// leaves the prize pool and its refund is a saga step, recorded in the
// same transaction, that asks the wallet's RefundEntry with the service's
// identity to reverse the entry's transfer — prize part and fee — once.
// An unregistered entry whose refund is still pending is finished by the
// same call.
func (s *Server) UnregisterPlayer(ctx context.Context, req *tournamentv1.UnregisterPlayerRequest) (*tournamentv1.UnregisterPlayerResponse, error) {
	id, player := req.GetTournamentId(), req.GetPlayerId()
	if err := actFor(ctx, player); err != nil {
		return nil, err
	}
	now := s.now()
	var refund entry.Payment
	err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		cur, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if cur == nil {
			return entry.ErrNotRegistered.Withf("%s has no entry in %s", player, id)
		}
		if cur.Status == entry.Unregistered {
			if p, err := pending(tx, player, entry.RefundEntry); err == nil {
				refund = p
				return nil
			}
		}
		en := *cur
		p, entryKey, err := entry.Unregister(t.Event, &en, now)
		if err != nil {
			return err
		}
		refund = p
		if err := tx.Withdraw(entryKey); err != nil {
			return err
		}
		if err := tx.AddPayment(p, 0, now); err != nil {
			return err
		}
		return tx.PutEntry(en)
	})
	if err != nil {
		return nil, err
	}
	en, _, err := s.settle(ctx, id, []entry.Payment{refund})
	if err != nil {
		return nil, err
	}
	pb, err := s.entryWithMoney(ctx, id, en)
	if err != nil {
		return nil, err
	}
	return &tournamentv1.UnregisterPlayerResponse{Entry: pb}, nil
}

// Rebuy decides and pays a rebuy (TR-13…TR-16, G-23).
func (s *Server) Rebuy(ctx context.Context, req *tournamentv1.RebuyRequest) (*tournamentv1.RebuyResponse, error) {
	id, player := req.GetTournamentId(), req.GetPlayerId()
	held, err := s.stackOf(ctx, id, player, req.GetStack())
	if err != nil {
		return nil, err
	}
	now := s.now()
	var pays []entry.Payment
	err = s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		en, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if en == nil {
			return entry.ErrNotRegistered.Withf("%s has no entry in %s", player, id)
		}
		idle, err := idleTable(tx, t, *en, now)
		if err != nil {
			return err
		}
		p, chips, err := entry.Rebuy(t.Event, t.Rules.Entry, *en,
			entry.Table{Now: now, HandsSincePeriodEnd: handsSincePeriodEnd(t, *en, req.GetHandsSincePeriodEnd()), Stack: held.Chips, AllIn: held.AllIn, Idle: idle})
		if err != nil {
			return err
		}
		pays = []entry.Payment{p}
		return tx.AddPayment(p, chips, now)
	})
	if err != nil {
		return nil, err
	}
	release := s.issuing(id)
	defer release()
	en, chips, err := s.settle(ctx, id, pays)
	if err != nil {
		return nil, err
	}
	s.driveChips(ctx, id, player, pays)
	return &tournamentv1.RebuyResponse{Entry: entryToProto(en), Chips: chips}, nil
}

// AddOn decides and pays the add-on, with a rebuy first for an empty
// stack (TR-17, G-23).
func (s *Server) AddOn(ctx context.Context, req *tournamentv1.AddOnRequest) (*tournamentv1.AddOnResponse, error) {
	id, player := req.GetTournamentId(), req.GetPlayerId()
	held, err := s.stackOf(ctx, id, player, req.GetStack())
	if err != nil {
		return nil, err
	}
	now := s.now()
	var pays []entry.Payment
	err = s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		en, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if en == nil {
			return entry.ErrNotRegistered.Withf("%s has no entry in %s", player, id)
		}
		idle, err := idleTable(tx, t, *en, now)
		if err != nil {
			return err
		}
		ps, _, err := entry.AddOn(t.Event, t.Rules.Entry, *en,
			entry.Table{Now: now, HandsSincePeriodEnd: handsSincePeriodEnd(t, *en, req.GetHandsSincePeriodEnd()), Stack: held.Chips, AllIn: held.AllIn, Idle: idle},
			req.GetWithRebuy())
		if err != nil {
			return err
		}
		pays = ps
		for _, p := range ps {
			chips := t.Rules.Entry.AddOnChips
			if p.Kind == entry.PayRebuy {
				chips = t.Rules.Entry.RebuyChips
			}
			if err := tx.AddPayment(p, chips, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	release := s.issuing(id)
	defer release()
	en, chips, err := s.settle(ctx, id, pays)
	if err != nil {
		return nil, err
	}
	s.driveChips(ctx, id, player, pays)
	return &tournamentv1.AddOnResponse{Entry: entryToProto(en), Chips: chips}, nil
}

// stackOf is the player's stack for a rebuy or an add-on (TR-15, TR-17):
// the chips the tables hold for them when the director drives the
// tables, whatever stack the request names; the request's otherwise (the
// floor runs the tables).
func (s *Server) stackOf(ctx context.Context, id, player string, asked int64) (director.Holding, error) {
	if s.director == nil {
		return director.Holding{Chips: asked}, nil
	}
	h, found, err := s.director.Chips(ctx, id, player)
	if err != nil {
		return director.Holding{}, fmt.Errorf("stack of %s: %w", player, err)
	}
	if !found {
		return director.Holding{Chips: asked}, nil
	}
	return h, nil
}

// issuing holds the director's chip count of the tournament while a
// payment's chips are issued and put on the tables (director.Issue).
func (s *Server) issuing(id string) (release func()) {
	if s.director == nil {
		return func() {}
	}
	return s.director.Issue(id)
}

// driveChips has the director put paid rebuy and add-on chips on the
// player's stack at the table (TR-14, TR-17), keyed by each payment.
func (s *Server) driveChips(ctx context.Context, id, player string, pays []entry.Payment) {
	if s.director == nil {
		return
	}
	t, err := s.store.Load(ctx, id)
	if err != nil {
		return
	}
	for _, p := range pays {
		chips, addOn := t.Rules.Entry.RebuyChips, p.Kind == entry.PayAddOn
		if addOn {
			chips = t.Rules.Entry.AddOnChips
		}
		s.drive(ctx, "chips", id, func(ctx context.Context, id string) error {
			return s.director.AddChips(ctx, id, player, p.Key, chips, addOn)
		})
	}
}

// LeaveTournament marks the player as gone (TR-35).
func (s *Server) LeaveTournament(ctx context.Context, req *tournamentv1.LeaveTournamentRequest) (*tournamentv1.LeaveTournamentResponse, error) {
	id, player := req.GetTournamentId(), req.GetPlayerId()
	if err := actFor(ctx, player); err != nil {
		return nil, err
	}
	var en entry.Entry
	err := s.store.Update(ctx, id, func(tx *store.Tx, t *store.Tournament) error {
		cur, err := tx.Entry(player)
		if err != nil {
			return err
		}
		if cur == nil {
			return entry.ErrNotRegistered.Withf("%s has no entry in %s", player, id)
		}
		en = *cur
		if err := entry.Leave(t.Event, &en); err != nil {
			return err
		}
		return tx.PutEntry(en)
	})
	if err != nil {
		return nil, err
	}
	// TR-35: the table deals the player dead until the chips are gone.
	s.drive(ctx, "leave", id, func(ctx context.Context, id string) error {
		return s.director.Absent(ctx, id, player, "trn/"+id+"/left/"+player)
	})
	return &tournamentv1.LeaveTournamentResponse{Entry: entryToProto(en)}, nil
}

// handsSincePeriodEnd is the larger of what the caller reports and what
// the player's table has reported through ReportHandStarted (TR-16).
func handsSincePeriodEnd(t *store.Tournament, en entry.Entry, reported int32) int {
	return max(int(reported), t.RebuyHands[en.Table])
}
