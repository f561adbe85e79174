package runner

import (
	"context"

	"github.com/cardroom/cardroom/services/table/store"
	"github.com/cardroom/cardroom/services/table/tables"
)

// The reads below answer from the store, not from a table in memory: any
// replica answers them, whether it runs the table or not.

// Definition returns table id's definition.
func (r *Runner) Definition(ctx context.Context, id string) (tables.Definition, error) {
	return r.d.Store.Get(ctx, id)
}

// Listed returns table id with its seats as last stored.
func (r *Runner) Listed(ctx context.Context, id string) (store.Listed, error) {
	return r.d.Store.GetListed(ctx, id)
}

// List lists the tables in the order they were opened, a page at a time.
func (r *Runner) List(ctx context.Context, size int, token string, includeClosed bool) ([]store.Listed, string, error) {
	return r.d.Store.ListListed(ctx, size, token, includeClosed)
}

// AuditLog lists table id's recorded rulings in order.
func (r *Runner) AuditLog(ctx context.Context, id string) ([]store.Audit, error) {
	return r.d.Store.AuditLog(ctx, id)
}

// IssuedEpoch returns the highest fencing epoch issued for table id.
func (r *Runner) IssuedEpoch(ctx context.Context, id string) (int64, error) {
	return r.d.Store.IssuedEpoch(ctx, id)
}

// Moves lists a tournament's moves in the given states, a page at a time.
func (r *Runner) Moves(ctx context.Context, tournament string, states []store.MoveState, size int, token string) ([]store.Move, string, error) {
	return r.d.Store.ListMoves(ctx, tournament, states, size, token)
}

// TournamentChips reads a tournament's tables and its moves in transit or
// arriving, one consistent snapshot of its chips.
func (r *Runner) TournamentChips(ctx context.Context, tournament string) ([]store.TournamentTable, []store.Move, error) {
	return r.d.Store.TournamentChips(ctx, tournament)
}

// HandReports returns up to size reports of table id's hands numbered
// after after, in order.
func (r *Runner) HandReports(ctx context.Context, id string, after int64, size int) ([][]byte, error) {
	return r.d.Store.HandReports(ctx, id, after, size)
}
