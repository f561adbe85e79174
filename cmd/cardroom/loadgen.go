package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/cmd/cardroom/loadgen"
	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/config"
	"github.com/cardroom/cardroom/platform/rpc"
)

const loadgenUsage = `usage: cardroom loadgen [FLAGS]

Puts a busy room's load on a running suite (make run, or a deployed one):
bot players are paid in at the cage, join the NL Hold'em 50/100 waitlist,
accept the seat they are offered, buy in, play legal actions at the set
pace, top up when short, leave after a few hands and are paid out; each
bot then comes back as a new player. The floor opens the run's tables
first and closes them at the end. Every call is timed.

It prints, per operation, the count, operations/s and the p50, p95, p99
and p99.9 latency; errors by reason (races a person meets too, such as an
offer that ran out, are marked expected); and the wallet's ledger audit
after the bots have left. It exits 1 when the audit is not clean or an
unexpected error happened.

Tokens are signed with the suite's key, found as cardroom token finds it:
CARDROOM_JWT_KEY, else the dev key in CARDROOM_DATA_DIR (make run's). The
address defaults to the suite's own, from CARDROOM_GRPC_ADDR or
CARDROOM_HTTP_ADDR; against a deployed suite give --addr and the suite's
CARDROOM_JWT_KEY.

Flags:
`

// errLoadFailed is returned when a load run found the suite wrong.
var errLoadFailed = errors.New("loadgen: unexpected errors or an unclean audit")

// runLoadgen is `cardroom loadgen`.
func runLoadgen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), loadgenUsage)
		fs.PrintDefaults()
	}
	via := fs.String("via", "grpc", "API the bots use: grpc, or rest (the gateway)")
	addr := fs.String("addr", "", "gRPC host:port, or the gateway's base URL for rest (default: the suite's configured address)")
	players := fs.Int("players", 24, "bots playing at once")
	tables := fs.Int("tables", 4, "tables the floor opens for the run")
	seats := fs.Int("seats", 6, "seats per table")
	duration := fs.Duration("duration", 30*time.Second, "how long the bots play")
	maxOps := fs.Int64("max-ops", 0, "stop after this many calls (0: no limit)")
	think := fs.Duration("think", 500*time.Millisecond, "a bot's time between seeing its turn and acting")
	poll := fs.Duration("poll", 200*time.Millisecond, "how often a waiting bot reads its table or its offers")
	hands := fs.Int("hands", 12, "the most hands a player plays before leaving")
	drain := fs.Duration("drain", 30*time.Second, "time for the bots to leave and the books to settle at the end")
	run := fs.String("run", "", "name of the run, in table and player names (default: random)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("loadgen takes no arguments: %w", errUsage)
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	issuer, err := suiteIssuer(cfg)
	if err != nil {
		return err
	}
	var conn grpc.ClientConnInterface
	switch *via {
	case "grpc":
		if *addr == "" {
			*addr = cfg.GRPCAddr
		}
		c, err := rpc.Dial(*addr, rpc.Options{})
		if err != nil {
			return err
		}
		defer c.Close()
		conn = c
	case "rest":
		if *addr == "" {
			*addr = "http://" + cfg.HTTPAddr
		}
		conn = &loadgen.REST{Base: *addr, Client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}}
	default:
		return fmt.Errorf("--via %q: want grpc or rest: %w", *via, errUsage)
	}
	if *run == "" {
		*run = strings.ToLower(rand.Text()[:6])
	}
	fmt.Fprintf(stdout, "loadgen %s: %d players at %d tables of %d over %s at %s for %s (think %s, poll %s)\n",
		*run, *players, *tables, *seats, *via, *addr, *duration, *think, *poll)
	rep, err := loadgen.Run(ctx, loadgen.Config{
		Conn: conn,
		Token: func(sub string, role auth.Role) (string, error) {
			return issuer.Mint(sub, []auth.Role{role}, *duration+*drain+time.Hour)
		},
		Players: *players, Tables: *tables, Seats: *seats, Duration: *duration, MaxOps: *maxOps,
		Think: *think, Poll: *poll, Hands: *hands, Drain: *drain, Run: *run, Seed: seed(*run),
	})
	if err != nil {
		return err
	}
	rep.Print(stdout)
	if rep.Unexpected > 0 || !rep.Audit.Clean {
		return errLoadFailed
	}
	return nil
}

// seed derives the bots' random choices from the run's name, so a named
// run plays the same choices again.
func seed(run string) uint64 {
	var h uint64 = 14695981039346656037
	for i := range len(run) {
		h = (h ^ uint64(run[i])) * 1099511628211
	}
	return h
}
