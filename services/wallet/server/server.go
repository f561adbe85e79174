// Package server is the wallet's gRPC face: it checks who may do what
// beyond the per-RPC roles (a player reads only their own accounts and
// asks only for themselves), translates proto to bank calls and back, and
// returns faults for platform/rpc to map to statuses. Nothing clever.
package server

import (
	"cmp"
	"context"
	"strconv"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/fault"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/wallet/bank"
	"github.com/cardroom/cardroom/services/wallet/buyin"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
	"github.com/cardroom/cardroom/services/wallet/store"
	"github.com/cardroom/cardroom/services/wallet/tables"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Server implements walletv1.WalletServiceServer over a bank.
type Server struct {
	walletv1.UnimplementedWalletServiceServer
	bank   *bank.Bank
	checks []bank.Check
	tables Tables
}

// Tables reads a cash table's terms from the table service for the
// buy-in check (*tables.Info implements it).
type Tables interface {
	// BuyInTerms returns the table's currency and game and the player's
	// stack there when seated; found is false for a table the table
	// service does not know.
	BuyInTerms(ctx context.Context, table, player string) (t tables.Terms, found bool, err error)
}

// WithTables returns s reading the tables' terms from t: CheckBuyIn then
// takes the game, currency and stack from the table, not the client.
func (s *Server) WithTables(t Tables) *Server {
	s.tables = t
	return s
}

var _ walletv1.WalletServiceServer = (*Server)(nil)

// New returns the gRPC handlers for b; the audit also runs checks.
func New(b *bank.Bank, checks ...bank.Check) *Server { return &Server{bank: b, checks: checks} }

// Failures of authorization beyond roles.
var (
	// ErrNotYourAccount refuses a player reading another's account.
	ErrNotYourAccount = fault.New(fault.Forbidden, "NOT_YOURSELF", "a player may read only their own accounts")
	// ErrNotYourself refuses a player acting for another player.
	ErrNotYourself = fault.New(fault.Forbidden, "NOT_YOURSELF", "a player may act only for themselves")
	errNoCaller    = fault.New(fault.Unauthenticated, "UNAUTHENTICATED", "no authenticated caller")
)

// caller is who the request acts as, in the one role platform/rpc chose
// for it from the roles the RPC allows.
func caller(ctx context.Context) (auth.Caller, error) {
	c, ok := auth.FromContext(ctx)
	if !ok {
		return auth.Caller{}, errNoCaller
	}
	return c, nil
}

// asPlayer reports whether the request acts as a player, so it reaches
// only the player's own accounts: also for a token that holds a staff
// role besides, which acts as the player wherever the RPC allows players.
func asPlayer(c auth.Caller) bool { return c.Is(auth.Player) }

// key scopes an idempotency key to its caller, so two cashiers' keys
// never collide; retries come from the same subject.
func key(c auth.Caller, k string) string { return c.Subject + "/" + k }

// readableAccount checks that the caller may read the account, before
// looking it up, so a player learns nothing about others' accounts.
func readableAccount(ctx context.Context, accountID string) (ledger.AccountID, error) {
	p, err := caller(ctx)
	if err != nil {
		return "", err
	}
	kind, owner, _, err := ledger.ParseAccountID(accountID)
	if asPlayer(p) && (err != nil || kind != ledger.Player || owner != p.Subject) {
		return "", ErrNotYourAccount.With("account_id", accountID)
	}
	if err != nil {
		return "", err
	}
	return ledger.AccountID(accountID), nil
}

// OpenAccount opens a player account.
func (s *Server) OpenAccount(ctx context.Context, r *walletv1.OpenAccountRequest) (*walletv1.OpenAccountResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if r.GetKind() != walletv1.AccountKind_ACCOUNT_KIND_PLAYER {
		return nil, fault.Invalidf("kind", "only player accounts are opened explicitly; room accounts open on first use")
	}
	k := r.GetIdempotencyKey()
	if k == "" {
		k = "open:" + r.GetOwnerId() + ":" + r.GetCurrency()
	}
	a, err := s.bank.OpenAccount(ctx, key(p, k), r.GetOwnerId(), r.GetCurrency())
	if err != nil {
		return nil, err
	}
	return &walletv1.OpenAccountResponse{Account: accountProto(a)}, nil
}

// GetBalance returns an account's balance.
func (s *Server) GetBalance(ctx context.Context, r *walletv1.GetBalanceRequest) (*walletv1.GetBalanceResponse, error) {
	id, err := readableAccount(ctx, r.GetAccountId())
	if err != nil {
		return nil, err
	}
	a, err := s.bank.Store().Account(ctx, id)
	if err != nil {
		return nil, err
	}
	return &walletv1.GetBalanceResponse{AccountId: string(a.ID), Currency: string(a.Currency), Balance: a.Balance, Available: a.Balance}, nil
}

// GetStatement pages through an account's entries.
func (s *Server) GetStatement(ctx context.Context, r *walletv1.GetStatementRequest) (*walletv1.GetStatementResponse, error) {
	id, err := readableAccount(ctx, r.GetAccountId())
	if err != nil {
		return nil, err
	}
	size := int(r.GetPageSize())
	size = cmp.Or(size, 50)
	var after int64
	if t := r.GetPageToken(); t != "" {
		if after, err = strconv.ParseInt(t, 10, 64); err != nil || after < 0 {
			return nil, fault.Invalidf("page_token", "is not a token from this API")
		}
	}
	lines, next, err := s.bank.Store().Statement(ctx, id, after, size)
	if err != nil {
		return nil, err
	}
	out := &walletv1.GetStatementResponse{Lines: make([]*walletv1.StatementLine, 0, len(lines))}
	if next > 0 {
		out.NextPageToken = strconv.FormatInt(next, 10)
	}
	for _, l := range lines {
		out.Lines = append(out.Lines, &walletv1.StatementLine{
			Sequence: l.Seq, TransferId: l.TransferID, Kind: transferKind(l.Kind), Amount: l.Amount,
			BalanceAfter: l.BalanceAfter, Details: l.Meta, CreateTime: timestamppb.New(l.At),
		})
	}
	return out, nil
}

// Deposit takes cash in at the cage.
func (s *Server) Deposit(ctx context.Context, r *walletv1.DepositRequest) (*walletv1.DepositResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.Deposit(ctx, bank.CashierRequest{Key: key(p, r.GetIdempotencyKey()), Player: r.GetPlayerId(), Currency: r.GetCurrency(), Amount: r.GetAmount(), Cashier: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.DepositResponse{Transfer: transferProto(res)}, nil
}

// Withdraw pays cash out at the cage.
func (s *Server) Withdraw(ctx context.Context, r *walletv1.WithdrawRequest) (*walletv1.WithdrawResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.Withdraw(ctx, bank.CashierRequest{Key: key(p, r.GetIdempotencyKey()), Player: r.GetPlayerId(), Currency: r.GetCurrency(), Amount: r.GetAmount(), Cashier: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.WithdrawResponse{Transfer: transferProto(res)}, nil
}

// GetCageReport sums the cage's movements for a gaming day.
func (s *Server) GetCageReport(ctx context.Context, r *walletv1.GetCageReportRequest) (*walletv1.GetCageReportResponse, error) {
	day := r.GetGamingDay()
	if day == "" {
		day = s.bank.Today()
	}
	lines, err := s.bank.Store().CageReport(ctx, day)
	if err != nil {
		return nil, err
	}
	out := &walletv1.GetCageReportResponse{GamingDay: day}
	for _, l := range lines {
		out.Lines = append(out.Lines, &walletv1.CageLine{
			Cashier: l.Cashier, Currency: string(l.Currency), Deposits: l.Deposits, DepositTotal: l.DepositTotal,
			Withdrawals: l.Withdrawals, WithdrawalTotal: l.WithdrawalTotal, Reversals: l.Reversals, NetCashIn: l.NetCashIn, Overflow: l.Overflow,
		})
	}
	return out, nil
}

// ReverseTransfer corrects a transfer by its reversal.
func (s *Server) ReverseTransfer(ctx context.Context, r *walletv1.ReverseTransferRequest) (*walletv1.ReverseTransferResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.Reverse(ctx, bank.ReverseRequest{Key: key(p, r.GetIdempotencyKey()), TransferID: r.GetTransferId(), Reason: r.GetReason(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.ReverseTransferResponse{Transfer: transferProto(res)}, nil
}

// CheckBuyIn says what a player may buy in for at a table now.
func (s *Server) CheckBuyIn(ctx context.Context, r *walletv1.CheckBuyInRequest) (*walletv1.CheckBuyInResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if asPlayer(p) && r.GetPlayerId() != p.Subject {
		return nil, ErrNotYourself.With("player_id", r.GetPlayerId())
	}
	q, err := s.buyInQuery(ctx, r)
	if err != nil {
		return nil, err
	}
	g := q.Game
	d, err := s.bank.CheckBuyIn(ctx, q)
	if err != nil {
		return nil, err
	}
	return &walletv1.CheckBuyInResponse{
		Range:      rangeProto(d.Range, d.Rule, d.Case),
		TableRange: rangeProto(d.Table, buyin.TableRule(g.Structure), buyin.NewBuyIn),
	}, nil
}

// buyInQuery is what CheckBuyIn asks the bank: the table's game and
// currency and the player's stack there, from the table service when it
// knows the table (a game or currency the client sends must then be the
// table's), else from the request.
func (s *Server) buyInQuery(ctx context.Context, r *walletv1.CheckBuyInRequest) (bank.BuyInQuery, error) {
	q := bank.BuyInQuery{Player: r.GetPlayerId(), Currency: r.GetCurrency(), Stack: r.GetStack()}
	var terms tables.Terms
	found := false
	if s.tables != nil {
		var err error
		if terms, found, err = s.tables.BuyInTerms(ctx, r.GetTableId(), r.GetPlayerId()); err != nil {
			return bank.BuyInQuery{}, err
		}
	}
	if !found {
		if r.GetGame() == nil {
			return bank.BuyInQuery{}, fault.Invalidf("game", "is required for a table the table service does not know")
		}
		g, err := gameOf(r.GetTableId(), r.GetGame())
		q.Game = g
		return q, err
	}
	g, err := gameOf(r.GetTableId(), terms.Game)
	if err != nil {
		return bank.BuyInQuery{}, err
	}
	if r.GetCurrency() != "" && r.GetCurrency() != terms.Currency {
		return bank.BuyInQuery{}, fault.Invalidf("currency", "the table plays in %s, not %s; leave it out", terms.Currency, r.GetCurrency())
	}
	if r.GetGame() != nil {
		if sent, err := gameOf(r.GetTableId(), r.GetGame()); err != nil || sent != g {
			return bank.BuyInQuery{}, fault.Invalidf("game", "is not the table's game; leave it out")
		}
	}
	q.Currency, q.Game, q.Stack = terms.Currency, g, 0
	if terms.Seated {
		q.Stack = terms.Stack
	}
	return q, nil
}

// HoldBuyIn holds a buy-in on a table's behalf.
func (s *Server) HoldBuyIn(ctx context.Context, r *walletv1.HoldBuyInRequest) (*walletv1.HoldBuyInResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	g, err := gameOf(r.GetTableId(), r.GetGame())
	if err != nil {
		return nil, err
	}
	h, err := s.bank.HoldBuyIn(ctx, bank.HoldRequest{
		Key:          key(p, r.GetIdempotencyKey()),
		TableRequest: bank.TableRequest{Table: r.GetTableId(), Epoch: r.GetEpoch()},
		Player:       r.GetPlayerId(), Seat: int64(r.GetSeat()), Currency: r.GetCurrency(), Game: g, Stack: r.GetStack(), Amount: r.GetAmount(),
		Sitting: r.GetSittingId(),
	})
	if err != nil {
		return nil, err
	}
	return &walletv1.HoldBuyInResponse{Hold: holdProto(h)}, nil
}

// SitDown buys a player into a seat in one step on a table's behalf.
func (s *Server) SitDown(ctx context.Context, r *walletv1.SitDownRequest) (*walletv1.SitDownResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	g, err := gameOf(r.GetTableId(), r.GetGame())
	if err != nil {
		return nil, err
	}
	d, err := s.bank.SitDown(ctx, bank.SitDownRequest{
		Key:          key(p, r.GetIdempotencyKey()),
		TableRequest: bank.TableRequest{Table: r.GetTableId(), Epoch: r.GetEpoch()},
		Player:       r.GetPlayerId(), Seat: int64(r.GetSeat()), Currency: r.GetCurrency(), Game: g, Amount: r.GetAmount(), Sitting: r.GetSittingId(),
	})
	if err != nil {
		return nil, err
	}
	out := &walletv1.SitDownResponse{SittingId: d.Sitting, TransferId: d.TransferID, Amount: d.Amount, Balance: d.Balance}
	if d.Rule != "" {
		out.Range = rangeProto(buyin.Range{Min: d.Min, Max: d.Max}, d.Rule, d.Case)
	}
	return out, nil
}

// CommitHold seats the player: held chips go to the table.
func (s *Server) CommitHold(ctx context.Context, r *walletv1.CommitHoldRequest) (*walletv1.CommitHoldResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.bank.CommitHold(ctx, bank.SettleRequest{Key: key(p, r.GetIdempotencyKey()), TableRequest: bank.TableRequest{Table: r.GetTableId(), Epoch: r.GetEpoch()},
		HoldID: r.GetHoldId(), Player: r.GetPlayerId()})
	if err != nil {
		return nil, err
	}
	return &walletv1.CommitHoldResponse{Hold: holdProto(h)}, nil
}

// ReleaseHold returns held chips to the player.
func (s *Server) ReleaseHold(ctx context.Context, r *walletv1.ReleaseHoldRequest) (*walletv1.ReleaseHoldResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	h, err := s.bank.ReleaseHold(ctx, bank.SettleRequest{Key: key(p, r.GetIdempotencyKey()), TableRequest: bank.TableRequest{Table: r.GetTableId(), Epoch: r.GetEpoch()}, HoldID: r.GetHoldId()})
	if err != nil {
		return nil, err
	}
	return &walletv1.ReleaseHoldResponse{Hold: holdProto(h)}, nil
}

// CashOut pays a leaving player's stack.
func (s *Server) CashOut(ctx context.Context, r *walletv1.CashOutRequest) (*walletv1.CashOutResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.CashOut(ctx, bank.CashOutRequest{Key: key(p, r.GetIdempotencyKey()), TableRequest: bank.TableRequest{Table: r.GetTableId(), Epoch: r.GetEpoch()},
		Player: r.GetPlayerId(), Currency: r.GetCurrency(), Stack: r.GetStack(), Sitting: r.GetSittingId(), Seat: int64(r.GetSeat())})
	if err != nil {
		return nil, err
	}
	return &walletv1.CashOutResponse{TransferId: res.TransferID, Balance: res.Balance, Stack: res.Stack, LeaveTime: timestamppb.New(res.LeftAt), GamingDay: res.GamingDay}, nil
}

// Enter pays a tournament entry.
func (s *Server) Enter(ctx context.Context, r *walletv1.EnterRequest) (*walletv1.EnterResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.Enter(ctx, bank.ContributionRequest{Key: key(p, r.GetIdempotencyKey()), Player: r.GetPlayerId(), Event: r.GetEventId(),
		Currency: r.GetCurrency(), PrizePart: r.GetPrizePart(), Fee: r.GetFee(), VoucherID: r.GetVoucherId(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.EnterResponse{Transfer: transferProto(res)}, nil
}

// Rebuy pays a rebuy.
func (s *Server) Rebuy(ctx context.Context, r *walletv1.RebuyRequest) (*walletv1.RebuyResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.Rebuy(ctx, bank.ContributionRequest{Key: key(p, r.GetIdempotencyKey()), Player: r.GetPlayerId(), Event: r.GetEventId(),
		Currency: r.GetCurrency(), PrizePart: r.GetPrizePart(), Fee: r.GetFee(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.RebuyResponse{Transfer: transferProto(res)}, nil
}

// AddOn pays an add-on.
func (s *Server) AddOn(ctx context.Context, r *walletv1.AddOnRequest) (*walletv1.AddOnResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.AddOn(ctx, bank.ContributionRequest{Key: key(p, r.GetIdempotencyKey()), Player: r.GetPlayerId(), Event: r.GetEventId(),
		Currency: r.GetCurrency(), PrizePart: r.GetPrizePart(), Fee: r.GetFee(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.AddOnResponse{Transfer: transferProto(res)}, nil
}

// PayPrize pays a prize.
func (s *Server) PayPrize(ctx context.Context, r *walletv1.PayPrizeRequest) (*walletv1.PayPrizeResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.PayPrize(ctx, bank.PrizeRequest{Key: key(p, r.GetIdempotencyKey()), Player: r.GetPlayerId(), Event: r.GetEventId(),
		Currency: r.GetCurrency(), Amount: r.GetAmount(), Place: int64(r.GetPlace()), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.PayPrizeResponse{Transfer: transferProto(res)}, nil
}

// IssueVoucher pays a satellite prize as an entry voucher.
func (s *Server) IssueVoucher(ctx context.Context, r *walletv1.IssueVoucherRequest) (*walletv1.IssueVoucherResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.bank.IssueVoucher(ctx, bank.VoucherRequest{Key: key(p, r.GetIdempotencyKey()), Player: r.GetPlayerId(), SourceEvent: r.GetSourceEventId(),
		TargetEvent: r.GetTargetEventId(), Currency: r.GetCurrency(), Amount: r.GetAmount(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.IssueVoucherResponse{Voucher: &walletv1.Voucher{VoucherId: v.VoucherID, PlayerId: v.Player, EventId: v.TargetEvent,
		Currency: string(v.Currency), Amount: v.Amount, TransferId: v.TransferID, CreateTime: timestamppb.New(v.At)}}, nil
}

// Refund reverses a cancelled event's contributions.
func (s *Server) Refund(ctx context.Context, r *walletv1.RefundRequest) (*walletv1.RefundResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.Refund(ctx, bank.RefundRequest{Key: key(p, r.GetIdempotencyKey()), Event: r.GetEventId(), Reason: r.GetReason(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.RefundResponse{ReversalIds: res.Reversals, Total: res.Total}, nil
}

// RefundEntry reverses one withdrawn tournament entry (TR-04).
func (s *Server) RefundEntry(ctx context.Context, r *walletv1.RefundEntryRequest) (*walletv1.RefundEntryResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.RefundEntry(ctx, bank.EntryRefundRequest{Key: key(p, r.GetIdempotencyKey()), Event: r.GetEventId(), Player: r.GetPlayerId(),
		TransferID: r.GetTransferId(), Reason: r.GetReason(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.RefundEntryResponse{Transfer: transferProto(res)}, nil
}

// SettlePrizePool moves what a finished event's pool holds after its
// prizes to the house or a player (TR-34, G-24).
func (s *Server) SettlePrizePool(ctx context.Context, r *walletv1.SettlePrizePoolRequest) (*walletv1.SettlePrizePoolResponse, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.bank.SettlePrizePool(ctx, bank.PoolSettlementRequest{Key: key(p, r.GetIdempotencyKey()), Event: r.GetEventId(),
		Currency: r.GetCurrency(), Amount: r.GetAmount(), Player: r.GetPlayerId(), ToEvent: r.GetToEventId(), Reason: r.GetReason(), Actor: p.Subject})
	if err != nil {
		return nil, err
	}
	return &walletv1.SettlePrizePoolResponse{Transfer: transferProto(res)}, nil
}

// Audit proves the books: the ledger, and each cash table's escrow
// against its chips.
func (s *Server) Audit(ctx context.Context, _ *walletv1.AuditRequest) (*walletv1.AuditResponse, error) {
	r, err := s.bank.Audit(ctx, s.checks...)
	if err != nil {
		return nil, err
	}
	return AuditProto(r), nil
}

// AuditProto is an audit report as the API returns it.
func AuditProto(r bank.AuditReport) *walletv1.AuditResponse {
	l := r.Ledger
	out := &walletv1.AuditResponse{Clean: r.Clean(), Problems: r.Problems(), Accounts: l.Accounts, Transfers: l.Transfers, Entries: l.Entries,
		TablesReconciled: r.TablesReconciled}
	for _, c := range l.Currencies {
		debits, _ := c.Debits.Int64()
		credits, _ := c.Credits.Int64()
		balances, _ := c.Balances.Int64()
		out.Currencies = append(out.Currencies, &walletv1.CurrencyTotals{Currency: string(c.Currency), Debits: debits, Credits: credits, Balances: balances,
			DebitsExact: c.Debits.String(), CreditsExact: c.Credits.String(), BalancesExact: c.Balances.String()})
	}
	for _, t := range r.Tables.Lines {
		out.Tables = append(out.Tables, &walletv1.TableReconciliation{TableId: t.Table, Currency: string(t.Currency), Escrow: t.Escrow,
			OnTable: t.OnTable, Uncommitted: t.Uncommitted, Unpaid: t.Unpaid, Expected: t.Expected, Matches: t.Matches()})
	}
	out.StuckCashOuts = stuckProto(r.Tables.Stuck)
	return out
}

// ListStuckCashOuts lists the cash-outs the tables retried past their
// limit, for the cage.
func (s *Server) ListStuckCashOuts(ctx context.Context, _ *walletv1.ListStuckCashOutsRequest) (*walletv1.ListStuckCashOutsResponse, error) {
	stuck, err := s.bank.StuckCashOuts(ctx)
	if err != nil {
		return nil, err
	}
	return &walletv1.ListStuckCashOutsResponse{CashOuts: stuckProto(stuck)}, nil
}

func stuckProto(stuck []reconcile.Stuck) []*walletv1.StuckCashOut {
	var out []*walletv1.StuckCashOut
	for _, m := range stuck {
		c := &walletv1.StuckCashOut{TableId: m.Table, PlayerId: m.Player, Seat: int32(m.Seat), Stack: m.Amount, SittingId: m.Sitting, Key: m.Key,
			Attempts: int32(m.Attempts), LastError: m.LastError, CreateTime: timestamppb.New(m.Created)}
		if !m.LastAttempt.IsZero() {
			c.LastAttemptTime = timestamppb.New(m.LastAttempt)
		}
		out = append(out, c)
	}
	return out
}

func gameOf(table string, g *gamev1.Game) (buyin.Game, error) {
	out := buyin.Game{Table: table, BigBlind: g.GetStakes().GetBigBlind(), BigBet: g.GetStakes().GetBigBet()}
	switch g.GetStructure() {
	case gamev1.Structure_STRUCTURE_NO_LIMIT:
		out.Structure = buyin.NoLimit
	case gamev1.Structure_STRUCTURE_POT_LIMIT:
		out.Structure = buyin.PotLimit
	case gamev1.Structure_STRUCTURE_FIXED_LIMIT:
		out.Structure = buyin.FixedLimit
	default:
		return buyin.Game{}, fault.Invalidf("game.structure", "is required")
	}
	return out, nil
}

var cases = map[buyin.Case]walletv1.BuyInCase{
	buyin.NewBuyIn:        walletv1.BuyInCase_BUY_IN_CASE_NEW,
	buyin.TopUp:           walletv1.BuyInCase_BUY_IN_CASE_TOP_UP,
	buyin.RebuyAfterBroke: walletv1.BuyInCase_BUY_IN_CASE_REBUY,
	buyin.ReturnSameTable: walletv1.BuyInCase_BUY_IN_CASE_RETURN,
	buyin.TableChange:     walletv1.BuyInCase_BUY_IN_CASE_TABLE_CHANGE,
	buyin.StructureChange: walletv1.BuyInCase_BUY_IN_CASE_STRUCTURE_CHANGE,
}

func rangeProto(r buyin.Range, rule string, c buyin.Case) *walletv1.BuyInRange {
	out := &walletv1.BuyInRange{Min: r.Min, Max: r.Max, RuleId: rule, Case: cases[c]}
	if !r.HasMax() {
		out.Max, out.Unbounded = 0, true
	}
	return out
}

var transferKinds = map[ledger.TransferKind]walletv1.TransferKind{
	ledger.Deposit:        walletv1.TransferKind_TRANSFER_KIND_DEPOSIT,
	ledger.Withdrawal:     walletv1.TransferKind_TRANSFER_KIND_WITHDRAWAL,
	ledger.BuyInHold:      walletv1.TransferKind_TRANSFER_KIND_BUY_IN_HOLD,
	ledger.BuyInCommit:    walletv1.TransferKind_TRANSFER_KIND_BUY_IN_COMMIT,
	ledger.BuyInRelease:   walletv1.TransferKind_TRANSFER_KIND_BUY_IN_RELEASE,
	ledger.BuyIn:          walletv1.TransferKind_TRANSFER_KIND_BUY_IN,
	ledger.CashOut:        walletv1.TransferKind_TRANSFER_KIND_CASH_OUT,
	ledger.EventEntry:     walletv1.TransferKind_TRANSFER_KIND_ENTRY,
	ledger.Rebuy:          walletv1.TransferKind_TRANSFER_KIND_REBUY,
	ledger.AddOn:          walletv1.TransferKind_TRANSFER_KIND_ADD_ON,
	ledger.Prize:          walletv1.TransferKind_TRANSFER_KIND_PRIZE,
	ledger.VoucherIssue:   walletv1.TransferKind_TRANSFER_KIND_VOUCHER_ISSUE,
	ledger.Reversal:       walletv1.TransferKind_TRANSFER_KIND_REVERSAL,
	ledger.PoolSettlement: walletv1.TransferKind_TRANSFER_KIND_POOL_SETTLEMENT,
}

func transferKind(k ledger.TransferKind) walletv1.TransferKind { return transferKinds[k] }

func transferProto(t bank.TransferResult) *walletv1.Transfer {
	return &walletv1.Transfer{TransferId: t.TransferID, Kind: transferKind(t.Kind), Currency: string(t.Currency), Amount: t.Amount,
		AccountId: string(t.Account), Balance: t.Balance, GamingDay: t.GamingDay, CreateTime: timestamppb.New(t.At)}
}

var accountKinds = map[ledger.Kind]walletv1.AccountKind{
	ledger.Player:    walletv1.AccountKind_ACCOUNT_KIND_PLAYER,
	ledger.HouseFees: walletv1.AccountKind_ACCOUNT_KIND_HOUSE,
	ledger.Cage:      walletv1.AccountKind_ACCOUNT_KIND_CAGE,
	ledger.Table:     walletv1.AccountKind_ACCOUNT_KIND_TABLE,
	ledger.Hold:      walletv1.AccountKind_ACCOUNT_KIND_HOLD,
	ledger.PrizePool: walletv1.AccountKind_ACCOUNT_KIND_PRIZE_POOL,
	ledger.Voucher:   walletv1.AccountKind_ACCOUNT_KIND_VOUCHER,
}

func accountProto(a ledger.Account) *walletv1.Account {
	return &walletv1.Account{AccountId: string(a.ID), OwnerId: a.Owner, Currency: string(a.Currency), Kind: accountKinds[a.Kind],
		CreateTime: timestamppb.New(a.CreatedAt), Balance: a.Balance}
}

var holdStates = map[store.HoldState]walletv1.HoldState{
	store.Held:      walletv1.HoldState_HOLD_STATE_HELD,
	store.Committed: walletv1.HoldState_HOLD_STATE_COMMITTED,
	store.Released:  walletv1.HoldState_HOLD_STATE_RELEASED,
	store.Expired:   walletv1.HoldState_HOLD_STATE_EXPIRED,
}

func holdProto(h bank.HoldResult) *walletv1.Hold {
	out := &walletv1.Hold{HoldId: h.HoldID, State: holdStates[h.State], PlayerId: h.Player, TableId: h.Table, Currency: string(h.Currency),
		Amount: h.Amount, ExpireTime: timestamppb.New(h.ExpiresAt), TransferId: h.TransferID, Balance: h.Balance}
	if h.Rule != "" {
		out.Range = rangeProto(buyin.Range{Min: h.Min, Max: h.Max}, h.Rule, h.Case)
	}
	return out
}
