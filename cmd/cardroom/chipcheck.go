package main

import (
	"context"
	"fmt"

	"github.com/cardroom/cardroom/platform/sqlstore"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	tournamentstore "github.com/cardroom/cardroom/services/tournament/store"
	"github.com/cardroom/cardroom/services/wallet/bank"
)

// eventChips is a running tournament's last chip count, as its director
// saved it after a hand.
type eventChips struct {
	ID    string
	Check tournamentstore.ChipCheck
}

// tournamentChips is the wallet audit's check of the tournaments' chip
// conservation (bank.Check): every running tournament whose last count of
// the chips at its tables and in transit differs from the chips it issued
// is a problem. It reads the director's saved count rather than counting
// the tables again, so the audit makes no round trip through the table
// service and a count and its issue total are always of one moment.
func tournamentChips(list func(context.Context) ([]eventChips, error)) bank.Check {
	return func(ctx context.Context) ([]string, error) {
		events, err := list(ctx)
		if err != nil {
			return nil, fmt.Errorf("tournaments' chip counts: %w", err)
		}
		var problems []string
		for _, e := range events {
			if d := e.Check.Mismatch(); d != 0 {
				problems = append(problems, fmt.Sprintf("tournament %s: chips counted %d at %s, issued %d (difference %+d)",
					e.ID, e.Check.Counted, e.Check.CountedAt.Format("2006-01-02T15:04:05Z07:00"), e.Check.Issued, d))
			}
		}
		return problems, nil
	}
}

// chipsOverRPC lists the running tournaments' chip counts from the
// tournament service (the wallet's own check, GET /v1/audit).
func chipsOverRPC(c tournamentv1.TournamentServiceClient) func(context.Context) ([]eventChips, error) {
	return func(ctx context.Context) ([]eventChips, error) {
		var out []eventChips
		token := ""
		for {
			page, err := c.ListTournaments(ctx, &tournamentv1.ListTournamentsRequest{PageSize: 100, PageToken: token})
			if err != nil {
				return nil, err
			}
			for _, t := range page.GetTournaments() {
				if t.GetState() != tournamentv1.TournamentState_TOURNAMENT_STATE_RUNNING {
					continue
				}
				// The list leaves the chip check out; the event's status has it.
				got, err := c.GetTournament(ctx, &tournamentv1.GetTournamentRequest{TournamentId: t.GetTournamentId()})
				if err != nil {
					return nil, err
				}
				if cc := got.GetTournament().GetChipCheck(); cc != nil {
					out = append(out, eventChips{ID: t.GetTournamentId(), Check: tournamentstore.ChipCheck{
						Issued: cc.GetChipsIssued(), Counted: cc.GetChipsCounted(), CountedAt: cc.GetCountedAt().AsTime()}})
				}
			}
			if token = page.GetNextPageToken(); token == "" {
				return out, nil
			}
		}
	}
}

// chipsFromDB lists the running tournaments' chip counts from the
// tournament service's database (cardroom wallet audit, which reads the
// databases).
func chipsFromDB(db *sqlstore.DB) func(context.Context) ([]eventChips, error) {
	s := tournamentstore.New(db)
	return func(ctx context.Context) ([]eventChips, error) {
		ids, err := s.Running(ctx)
		if err != nil {
			return nil, err
		}
		var out []eventChips
		for _, id := range ids {
			c, ok, err := s.ChipCheck(ctx, id)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, eventChips{ID: id, Check: c})
			}
		}
		return out, nil
	}
}
