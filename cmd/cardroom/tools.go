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
	"github.com/cardroom/cardroom/services/table/phh"
	"github.com/cardroom/cardroom/services/wallet"
)

// runToken prints a bearer token signed with the suite's key (configured,
// or the dev key in the data dir), so it is accepted by a suite started
// with the same environment.
func runToken(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	sub := fs.String("sub", "", "subject: the player, dealer or system the token names")
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
	key, err := auth.ResolveKey(cfg.JWTKey, cfg.DataDir)
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	issuer, err := auth.NewIssuer(key, nil)
	if err != nil {
		return err
	}
	tok, err := issuer.Mint(*sub, rs, *ttl)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, tok)
	return err
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

// runWalletAudit is `cardroom wallet audit`: it proves, per currency, that
// debits equal credits and that each balance equals the sum of its
// entries, prints what it found, and fails when anything is wrong.
func runWalletAudit(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	var p part
	for _, q := range allParts {
		if q.name == "wallet" {
			p = q
		}
	}
	db, err := openDB(ctx, cfg, p)
	if err != nil {
		return err
	}
	defer db.Close()
	r, err := wallet.Audit(ctx, db)
	if err != nil {
		return fmt.Errorf("wallet audit: %w", err)
	}
	fmt.Fprintf(stdout, "accounts %d, transfers %d, entries %d\n", r.Accounts, r.Transfers, r.Entries)
	for _, c := range r.Currencies {
		fmt.Fprintf(stdout, "%s: debits %s, credits %s, balances sum %s\n", c.Currency, c.Debits, c.Credits, c.Balances)
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
