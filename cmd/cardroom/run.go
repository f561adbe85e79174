package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cardroom/cardroom/platform/config"
)

const usage = `usage: cardroom COMMAND [ARGS]

Parts (configured by environment variables, see docs/CONFIG.md):
  all          every service and the REST gateway in one process
  table | tournament | wallet | seating
               one service's gRPC server
  gateway      the REST gateway alone, calling the services at CARDROOM_*_ADDR

Tools:
  token --sub NAME --role ROLE[,ROLE...] [--ttl 12h]
               print a bearer token the running suite accepts
  migrate [PART...]
               apply every pending database migration and exit
  phh replay FILE...
               replay PHH hand histories through the engine
  wallet audit prove the ledger (per currency debits = credits, each
               balance = the sum of its entries) and reconcile each cash
               table's escrow with its chips; list stuck cash-outs (exit 1
               when anything is wrong)
  loadgen [FLAGS]
               bot players and a cashier over gRPC or REST against a
               running suite; per-operation throughput and latency
               percentiles, errors by reason, the ledger audit
               (cardroom loadgen --help)
`

// errUsage marks a command line that does not parse.
var errUsage = errors.New("bad usage (cardroom help)")

// run dispatches a command line. It is main without the process: tests
// call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "token":
		return runToken(rest, stdout)
	case "phh":
		return runPHH(rest, stdout)
	case "loadgen":
		return runLoadgen(ctx, rest, stdout, stderr)
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	switch {
	case cmd == "all":
		return serve(ctx, cfg, allParts, true, stdout)
	case cmd == "gateway":
		return serve(ctx, cfg, nil, true, stdout)
	case cmd == "migrate":
		return runMigrate(ctx, cfg, rest, stdout)
	case cmd == "wallet" && len(rest) == 1 && rest[0] == "audit":
		return runWalletAudit(ctx, cfg, stdout)
	}
	for _, p := range allParts {
		if p.name == cmd && len(rest) == 0 {
			return serve(ctx, cfg, []part{p}, false, stdout)
		}
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q: %w", cmd, errUsage)
}
