package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/services/table"
	"github.com/cardroom/cardroom/services/table/phh"
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/tournament"
	"github.com/cardroom/cardroom/services/wallet"
	"github.com/cardroom/cardroom/services/wallet/ledger"
	"github.com/cardroom/cardroom/services/wallet/reconcile"
)

// runToken prints a bearer token signed with the suite's key (configured,
// or the dev key in the data dir), so it is accepted by a suite started
// with the same environment.
func runToken(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	sub := fs.String("sub", "", "subject: the player, dealer or system the token names")
	name := fs.String("name", "", "display name other players see instead of the subject (waitlists, the seating board)")
	roles := fs.String("role", "", "role, or comma-separated roles: "+roleNames())
	ttl := fs.Duration("ttl", devTokenTTL, "how long the token stays valid")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *sub == "" || *roles == "" || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("token needs --sub and --role: %w", errUsage)
	}
	var rs []auth.Role
	for _, r := range strings.Split(*roles, ",") {
		role, err := auth.ParseRole(strings.TrimSpace(r))
		if err != nil {
			return err
		}
		rs = append(rs, role)
	}
	if *ttl <= 0 {
		return fmt.Errorf("--ttl must be positive: %w", errUsage)
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	issuer, err := suiteIssuer(cfg)
	if err != nil {
		return err
	}
	tok, err := issuer.MintNamed(*sub, *name, rs, *ttl)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, tok)
	return err
}

// suiteIssuer signs tokens with the suite's key: CARDROOM_JWT_KEY, else
// the dev key in the data dir, so a suite started with the same
// environment accepts them.
func suiteIssuer(cfg config.Config) (*auth.Issuer, error) {
	key, err := auth.ResolveKey(cfg.JWTKey, cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return auth.NewIssuer(key, nil)
}

func roleNames() string {
	names := make([]string, len(auth.AllRoles))
	for i, r := range auth.AllRoles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// runMigrate applies the named parts' migrations (all parts when none is
// named) and exits: the Kubernetes pre-deploy job.
func runMigrate(ctx context.Context, cfg config.Config, names []string, stdout io.Writer) error {
	selected := allParts
	if len(names) > 0 {
		selected = nil
		for _, n := range names {
			found := false
			for _, p := range allParts {
				if p.name == n {
					selected, found = append(selected, p), true
				}
			}
			if !found {
				return fmt.Errorf("migrate: unknown part %q: %w", n, errUsage)
			}
		}
	}
	for _, p := range selected {
		db, err := openDB(ctx, cfg, p)
		if err != nil {
			return err
		}
		if err := db.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: migrated\n", p.name)
	}
	return nil
}

// runPHH is `cardroom phh replay FILE...`: one tab-separated line per file,
// FILE STACKS [..] or FILE REJECT@k reason (services/table/phh).
func runPHH(args []string, stdout io.Writer) error {
	if len(args) < 2 || args[0] != "replay" {
		return fmt.Errorf("phh replay FILE...: %w", errUsage)
	}
	for _, name := range args[1:] {
		if _, err := fmt.Fprintln(stdout, replayFile(name)); err != nil {
			return err
		}
	}
	return nil
}

func replayFile(name string) phh.Line {
	f, err := os.Open(name)
	if err != nil {
		return phh.Line{Name: name, Err: err}
	}
	defer f.Close()
	return phh.Replay(f, name)
}

// errAuditFailed is returned when the wallet audit finds the ledger wrong.
var errAuditFailed = errors.New("wallet audit found problems")

// runWalletAudit is `cardroom wallet audit`: it proves the ledger (per
// currency debits equal credits, each balance equals the sum of its
// entries) and reconciles each cash table's escrow with the chips the
// table service's store counts there, prints what it found, and fails
// when anything is wrong. It reads the databases, so it runs with the
// suite stopped as well as running.
func runWalletAudit(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	dbs := map[string]*sqlstore.DB{}
	for _, q := range allParts {
		if q.name == "wallet" || q.name == table.Name || q.name == tournament.Name {
			db, err := openDB(ctx, cfg, q)
			if err != nil {
				return err
			}
			defer db.Close()
			dbs[q.name] = db
		}
	}
	r, err := wallet.Audit(ctx, dbs["wallet"], tableCounter{dbs[table.Name]}, tournamentChips(chipsFromDB(dbs[tournament.Name])))
	if err != nil {
		return fmt.Errorf("wallet audit: %w", err)
	}
	l := r.Ledger
	fmt.Fprintf(stdout, "accounts %d, transfers %d, entries %d\n", l.Accounts, l.Transfers, l.Entries)
	for _, c := range l.Currencies {
		fmt.Fprintf(stdout, "%s: debits %s, credits %s, balances sum %s\n", c.Currency, c.Debits, c.Credits, c.Balances)
	}
	for _, line := range r.Tables.Lines {
		fmt.Fprintln(stdout, line)
	}
	if !r.Clean() {
		for _, p := range r.Problems() {
			fmt.Fprintln(stdout, "PROBLEM:", p)
		}
		return errAuditFailed
	}
	fmt.Fprintln(stdout, "clean")
	return nil
}

// tableCounter counts the cash tables from the table service's database.
type tableCounter struct{ db *sqlstore.DB }

func (c tableCounter) CountCash(ctx context.Context) ([]reconcile.TableCount, error) {
	counts, err := table.CountCash(ctx, c.db)
	if err != nil {
		return nil, err
	}
	out := make([]reconcile.TableCount, 0, len(counts))
	for _, tc := range counts {
		rc := reconcile.TableCount{Table: tc.Table, Currency: ledger.Currency(tc.Currency), Closed: tc.Closed, Chips: tc.Chips}
		for _, m := range tc.Pending {
			rc.Pending = append(rc.Pending, reconcile.Move{Key: m.Key, Kind: reconcile.MoveKind(m.Kind), Player: m.Player, Seat: m.Seat,
				Amount: m.Amount, Hold: m.HoldID, Sitting: m.Sitting, Attempts: m.Attempts, Stuck: m.Attempts >= runner.StuckAfter,
				LastError: m.LastError, Created: m.Created, LastAttempt: m.LastAttempt})
		}
		out = append(out, rc)
	}
	return out, nil
}
