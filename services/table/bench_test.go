package table_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

// BenchmarkActionsGRPC drives TABLE_BENCH_TABLES (default 200) heads-up
// tables at once over gRPC, on PostgreSQL with Redis locks and Redis
// Streams events, each table's two players acting in turn (check or call,
// so hands run to the river and the next hand is dealt). Every action is
// written, fenced, before it returns (the table row; at a hand's end also
// its history and events, group-committed with other tables' writes). It
// reports actions/s, the p50/p99/p99.9 latency of one Act call, the p50
// and p99 of the actions that ended a hand (and dealt the next) with their
// share of all actions, and the CPU per action of the service's process
// (cpu-us/action) and of the players' (players-cpu-us/action). The tables
// are set up once: b.Loop hands out the actions.
//
// The players are the users' phones, not part of the service, so they run
// in a process of their own (one process per part, as the target
// is measured): this test binary started again (TestMain), told the
// service's loopback TCP address, the tables and each player's bearer
// token. Their gRPC clients, timers and goroutines then neither share the
// service's Go scheduler nor count in its cpu-us/action.
// TABLE_BENCH_PLAYERS=inprocess runs them in the benchmark's process
// instead, for comparison; cpu-us/action is then service and players
// together, and players-cpu-us/action is not reported.
//
// TABLE_BENCH_PACE (a duration, default 0) is each table's time between
// actions — a player's thinking time. Zero drives every table flat out, a
// closed loop that measures the most actions/s the service sustains (and
// so, by Little's law, latency = tables / throughput); a pace such as 1s
// measures the latency of one action at a realistic room load.
// TABLE_BENCH_ASYNC_COMMIT=1 turns on Config.AsyncActionCommit.
//
// TABLE_BENCH_HAND_PAUSE (a duration, default 0) is the service's pause
// between hands (Config.HandPause; a room runs with
// CARDROOM_TABLE_HAND_PAUSE, 2s by default). At 0 the action that ends a
// hand also deals the next one, its shuffle, sealing and blinds inside
// that action's answer; with a pause the next hand is dealt by the
// table's timer, and the players wait for it (GetTableState once the
// pause is over), then think for a pace before the hand's first action.
//
// On PostgreSQL it also reports the WAL the server wrote per action
// (walMeter: bytes, records, full-page images and their share of the
// bytes), which unlike the rates does not depend on the machine's load;
// TABLE_BENCH_CHECKPOINT=1 takes a CHECKPOINT before the first action, so
// that the full-page images of a run that starts as a checkpoint does
// are counted too.
//
// It also reports the share of actions that took 10 ms or more
// (slow10-share) and how many of those ended a hand
// (slow10-hand-end-share): whether the tail is the hand ends' or every
// action's. TABLE_BENCH_PLAYERS_CPUPROFILE names a file for the players'
// process's CPU profile; TABLE_BENCH_STATE_COMMITTERS sets the service's
// Config.StateCommitters.
//
// TABLE_BENCH_TELEMETRY=1 runs the service with its telemetry as deployed
// (every call traced with its SQL and Redis spans, the metrics recorded,
// both exported over OTLP/gRPC to a sink that counts the bytes:
// testkit.DeployedTelemetry) and reports the bytes exported per action
// (otlp-B/action); without it the providers are the no-op ones.
func BenchmarkActionsGRPC(b *testing.B) { benchActions(b, false) }

// BenchmarkActionsREST is BenchmarkActionsGRPC with every action sent as
// JSON over HTTP through a grpc-gateway mux (the gateway's translation
// layer) in front of the same gRPC server. The mux runs with the players
// (the gateway is a part of its own), calling the service over gRPC.
func BenchmarkActionsREST(b *testing.B) { benchActions(b, true) }

func benchActions(b *testing.B, rest bool) {
	nTables := 200
	if v, err := strconv.Atoi(os.Getenv("TABLE_BENCH_TABLES")); err == nil && v > 0 {
		nTables = v
	}
	pace, _ := time.ParseDuration(os.Getenv("TABLE_BENCH_PACE"))
	async := os.Getenv("TABLE_BENCH_ASYNC_COMMIT") == "1"
	handPause, _ := time.ParseDuration(os.Getenv("TABLE_BENCH_HAND_PAUSE"))
	exported := benchTelemetry(b)
	g, c, db := benchService(b, async, handPause)
	floor := g.As(b, "floor", auth.Floor)

	// A batch is a round of the room: one action a table.
	plan := benchPlan{Addr: g.Conn.Target(), REST: rest, Pace: pace, HandPause: handPause, Tables: make([]benchTable, nTables), Batch: nTables}
	for i := range plan.Tables {
		resp, err := c.CreateTable(floor, &tablev1.CreateTableRequest{Name: fmt.Sprintf("bench %d", i), Seats: 2,
			Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1,
			Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
				Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}})
		if err != nil {
			b.Fatal(err)
		}
		tb := &plan.Tables[i]
		tb.ID = resp.GetTable().GetTableId()
		for s := range 2 {
			p := fmt.Sprintf("p%d_%d", i, s)
			if tb.Tokens[s], err = g.Issuer.Mint(p, []auth.Role{auth.Player}, time.Hour); err != nil {
				b.Fatal(err)
			}
			// Deep stacks: the players only check and call, so nobody busts.
			if _, err := c.Sit(floor, &tablev1.SitRequest{TableId: tb.ID, Seat: int32(s), PlayerId: p, Amount: 1_000_000, PostNow: true}); err != nil {
				b.Fatal(err)
			}
		}
	}

	analyzeTables(b, db)
	wal := startWAL(b, db, os.Getenv("TABLE_BENCH_CHECKPOINT") == "1")
	separate := os.Getenv("TABLE_BENCH_PLAYERS") != "inprocess"
	var ps playerSide
	if separate {
		ps = startPlayersProcess(b, plan)
	} else {
		local, err := startPlayers(plan, c)
		if err != nil {
			b.Fatal(err)
		}
		ps = local
	}
	cpu0 := processCPU()
	// The actions are handed out by b.Loop, so the function runs once and
	// the tables are set up once (not again for a first run with b.N = 1);
	// give waits for the tables to take them, so b.Loop keeps their pace.
	for b.Loop() {
		if !ps.give() {
			break // a player failed: reported below
		}
	}
	res := ps.finish()
	cpu := processCPU() - cpu0
	if res.Err != "" {
		b.Fatal(res.Err)
	}
	all, ends := res.Lat, res.Ends
	slices.Sort(all)
	slices.Sort(ends)
	if len(all) == 0 {
		return
	}
	pctOf := func(d []time.Duration, p float64) float64 {
		if len(d) == 0 {
			return 0
		}
		return float64(d[min(len(d)-1, int(p*float64(len(d))))].Microseconds()) / 1000
	}
	pct := func(p float64) float64 { return pctOf(all, p) }
	perAction := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(len(all)) }
	b.ReportMetric(pctOf(ends, 0.50), "hand-end-p50-ms")
	b.ReportMetric(pctOf(ends, 0.99), "hand-end-p99-ms")
	b.ReportMetric(float64(len(ends))/float64(len(all)), "hand-ends/action")
	b.ReportMetric(pct(0.999), "p99.9-ms")
	b.ReportMetric(float64(len(all))/res.Elapsed.Seconds(), "actions/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	// The CPU this process (the service; in-process also the players)
	// spent per action: on a shared machine, steadier than the rates
	// above, which also wait for cores the other processes hold.
	b.ReportMetric(perAction(cpu), "cpu-us/action")
	if separate {
		b.ReportMetric(perAction(res.CPU), "players-cpu-us/action")
	}
	wal.report(b, len(all))
	if exported != nil {
		b.ReportMetric(float64(exported())/float64(len(all)), "otlp-B/action")
	}
	slow := func(d []time.Duration) int { i, _ := slices.BinarySearch(d, 10*time.Millisecond); return len(d) - i }
	slowAll, slowEnds := slow(all), slow(ends)
	b.ReportMetric(float64(slowAll)/float64(len(all)), "slow10-share")
	if slowAll > 0 {
		b.ReportMetric(float64(slowEnds)/float64(slowAll), "slow10-hand-end-share")
	}
	b.ReportMetric(float64(nTables), "tables")
	b.ReportMetric(pace.Seconds(), "pace-s")
	b.ReportMetric(handPause.Seconds(), "hand-pause-s")
}

// benchTelemetry sets the process's telemetry up as a deployed table
// service has it when TABLE_BENCH_TELEMETRY=1 (testkit.DeployedTelemetry:
// every call traced with its SQL and Redis spans, the metrics recorded,
// both exported over OTLP/gRPC to a sink that only counts the bytes). It
// returns what reports the bytes exported, or nil when telemetry is off
// (the global providers are then the no-op ones, as in every benchmark
// before 2026-12-03 and in the tests).
func benchTelemetry(b *testing.B) (exported func() int64) {
	if os.Getenv("TABLE_BENCH_TELEMETRY") != "1" {
		return nil
	}
	return testkit.DeployedTelemetry(b, "cardroom-table")
}

// benchPlan is what the players need to play: the service's gRPC address,
// whether they act over REST, their pace and the tables; and, in a process
// of their own, how many actions they take between two answers.
type benchPlan struct {
	Addr      string
	REST      bool
	Pace      time.Duration
	HandPause time.Duration
	Tables    []benchTable
	Batch     int
}

// benchTable is one table and the bearer tokens of the players in seats 0
// and 1.
type benchTable struct {
	ID     string
	Tokens [2]string
}

// playersResult is what the players measured: every action's latency, the
// latencies of the actions that ended a hand (they write the hand's
// history and events too, so the tail is theirs), the time from the start
// to the last action's answer, the players' process's CPU over that time,
// and the first failure.
type playersResult struct {
	Lat, Ends    []time.Duration
	Elapsed, CPU time.Duration
	Err          string
}

// playerSide is the players as the benchmark drives them, in its own
// process (players) or in one of their own (playersProcess).
type playerSide interface {
	// give hands one action to a table that is ready for it; false once a
	// player failed.
	give() bool
	// finish hands out no more actions, waits for the tables to stop and
	// returns what the players measured.
	finish() playersResult
}

// actor sends one action with the bearer token of its context.
type actor func(context.Context, *tablev1.ActRequest) (*tablev1.ActResponse, error)

// players plays the tables of a plan in this process, a goroutine a table.
type players struct {
	plan   benchPlan
	c      tablev1.TableServiceClient
	act    actor
	stop   func() // the REST server, if any
	tokens chan struct{}
	// failed closes at the first failure, err.
	failed   chan struct{}
	failOnce sync.Once
	err      error
	lat      [][]time.Duration // a table's own, so no lock
	ends     [][]time.Duration
	wg       sync.WaitGroup
	start    time.Time
	cpu0     time.Duration
	// read counts the tables that have read their state; begin closes
	// when all have, first being that time: the paced tables' schedule
	// starts from it.
	read  sync.WaitGroup
	begin chan struct{}
	first time.Time
}

// startPlayers starts the players of plan, calling the service through c:
// over gRPC, or over REST through a grpc-gateway mux of their own in front
// of c. Each table waits for its first action (give).
func startPlayers(plan benchPlan, c tablev1.TableServiceClient) (*players, error) {
	ps := &players{plan: plan, c: c, stop: func() {}, tokens: make(chan struct{}), failed: make(chan struct{}),
		lat: make([][]time.Duration, len(plan.Tables)), ends: make([][]time.Duration, len(plan.Tables))}
	ps.act = func(ctx context.Context, req *tablev1.ActRequest) (*tablev1.ActResponse, error) {
		return c.Act(ctx, req)
	}
	if plan.REST {
		var err error
		if ps.act, ps.stop, err = restActor(c); err != nil {
			return nil, err
		}
	}
	ps.start, ps.cpu0 = time.Now(), processCPU()
	ps.begin = make(chan struct{})
	ps.read.Add(len(plan.Tables))
	for i := range plan.Tables {
		ps.wg.Go(func() { ps.play(i) })
	}
	go func() {
		ps.read.Wait()
		ps.first = time.Now()
		close(ps.begin)
	}()
	return ps, nil
}

// play is table i's two players: they read the table, then act in turn,
// one action per token, checking or calling, until the tokens run out or
// a player fails. Paced, table i acts at i/n of a pace after every table
// has read its state, and a pace after each action: the room's actions
// arrive evenly spread, as many in any tenth of a second as in another.
// (Timed from each table's own read, they came in clumps as the reads'
// answers had: some tenths of a second had three times the actions of
// others.)
func (ps *players) play(i int) {
	tb, pace := ps.plan.Tables[i], ps.plan.Pace
	var seat [2]context.Context
	for s, tok := range tb.Tokens {
		seat[s] = auth.WithToken(context.Background(), tok)
	}
	state, err := ps.firstState(seat[0], tb.ID)
	ps.read.Done()
	if err != nil {
		ps.fail(fmt.Errorf("table %s: %w", tb.ID, err))
		return
	}
	select {
	case <-ps.begin:
	case <-ps.failed:
		return
	}
	next := ps.first.Add(time.Duration(i) * pace / time.Duration(len(ps.plan.Tables)))
	for {
		if pace > 0 {
			// The players think; a failure elsewhere ends the run now.
			select {
			case <-time.After(time.Until(next)):
			case <-ps.failed:
				return
			}
			next = next.Add(pace)
		}
		if _, ok := <-ps.tokens; !ok {
			return
		}
		h := state.GetHand()
		toAct := h.GetToAct()
		if betweenHands(h) {
			ps.fail(fmt.Errorf("table %s: nobody to act", tb.ID))
			return
		}
		kind := tablev1.ActionKind_ACTION_KIND_CHECK
		for _, s := range state.GetSeats() {
			if s.GetBet() > state.GetSeats()[toAct].GetBet() {
				kind = tablev1.ActionKind_ACTION_KIND_CALL
			}
		}
		t0 := time.Now()
		resp, err := ps.act(seat[toAct], &tablev1.ActRequest{TableId: tb.ID, Kind: kind})
		took := time.Since(t0)
		ps.lat[i] = append(ps.lat[i], took)
		if err != nil {
			ps.fail(fmt.Errorf("table %s seat %d %v: %w", tb.ID, toAct, kind, err))
			return
		}
		state = resp.GetState()
		if now := state.GetHand(); now.GetHandNo() != h.GetHandNo() || betweenHands(now) {
			ps.ends[i] = append(ps.ends[i], took)
		}
		if ps.plan.HandPause > 0 && betweenHands(state.GetHand()) {
			if state, err = ps.awaitDeal(seat[0], tb.ID, h.GetHandNo()); err != nil {
				ps.fail(fmt.Errorf("table %s: %w", tb.ID, err))
				return
			}
			next = time.Now().Add(pace) // the first to act thinks
		}
	}
}

// firstState reads a table's state before its first action, waiting for
// its first hand when it is not dealt yet (a hand pause).
func (ps *players) firstState(ctx context.Context, id string) (*tablev1.TableState, error) {
	st, err := ps.c.GetTableState(ctx, &tablev1.GetTableStateRequest{TableId: id})
	if err != nil {
		return nil, err
	}
	if h := st.GetState().GetHand(); betweenHands(h) {
		return ps.awaitDeal(ctx, id, h.GetHandNo())
	}
	return st.GetState(), nil
}

// betweenHands says that a table's hand is over and the next not dealt
// (a hand pause): nobody is to act.
func betweenHands(h *tablev1.HandState) bool { return h == nil || h.GetDone() || h.GetToAct() < 0 }

// awaitDeal waits for a table's hand after hand to be dealt, as a player
// does through the hand pause: it reads the table once the pause is over,
// and again every few milliseconds until the new hand waits for an
// action.
func (ps *players) awaitDeal(ctx context.Context, id string, hand int64) (*tablev1.TableState, error) {
	wait := ps.plan.HandPause
	deadline := time.Now().Add(ps.plan.HandPause + 30*time.Second)
	for {
		select {
		case <-time.After(wait):
		case <-ps.failed:
			return nil, errors.New("another player failed")
		}
		st, err := ps.c.GetTableState(ctx, &tablev1.GetTableStateRequest{TableId: id})
		if err != nil {
			return nil, fmt.Errorf("await the deal after hand %d: %w", hand, err)
		}
		if h := st.GetState().GetHand(); h.GetHandNo() > hand && !betweenHands(h) {
			return st.GetState(), nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no hand dealt after hand %d in %v", hand, ps.plan.HandPause+30*time.Second)
		}
		wait = 10 * time.Millisecond
	}
}

// fail records the first failure and stops handing out actions.
func (ps *players) fail(err error) {
	ps.failOnce.Do(func() { ps.err = err; close(ps.failed) })
}

func (ps *players) give() bool {
	select {
	case ps.tokens <- struct{}{}:
		return true
	case <-ps.failed:
		return false
	}
}

func (ps *players) finish() playersResult {
	close(ps.tokens)
	ps.wg.Wait()
	res := playersResult{Lat: slices.Concat(ps.lat...), Ends: slices.Concat(ps.ends...),
		Elapsed: time.Since(ps.start), CPU: processCPU() - ps.cpu0}
	ps.stop()
	if ps.err != nil {
		res.Err = ps.err.Error()
	}
	return res
}

// playersEnv set to 1 makes the test binary the players' process
// (TestMain, playersChild) rather than run tests.
const playersEnv = "CARDROOM_BENCH_PLAYERS_CHILD"

// ack is a byte between the benchmark and the players' process: an action
// handed out, or an answer (ready; a batch of actions taken).
const ack = '.'

// TestMain runs the players' process when the benchmark started this
// binary as one, and the tests otherwise.
func TestMain(m *testing.M) {
	if os.Getenv(playersEnv) == "1" {
		if err := playersChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "players:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// playersProcess is the players in a process of their own, which
// playersChild runs. The plan goes to its stdin as a line of JSON, then an
// ack per action; it answers an ack when it is ready and then one per
// plan.Batch actions its tables took, and at the end writes its
// playersResult to stdout as JSON. The benchmark keeps at most two
// batches ahead of the tables, so b.Loop still waits for the players, but
// the service's process is woken once a batch, not once an action: a
// wakeup of an idle Go process costs tens of microseconds of CPU, which
// would count in the service's cpu-us/action.
type playersProcess struct {
	cmd   *exec.Cmd
	stdin io.Closer
	in    *bufio.Writer
	out   *bufio.Reader
	batch int
	ahead int // actions handed out that no answer has counted yet
}

// startPlayersProcess starts the players' process with plan and waits
// until it is ready, its players started.
func startPlayersProcess(b *testing.B, plan benchPlan) *playersProcess {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), playersEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// If the benchmark fails before finish has waited for the process.
	b.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	p := &playersProcess{cmd: cmd, stdin: stdin, in: bufio.NewWriter(stdin), out: bufio.NewReader(out), batch: plan.Batch}
	line, err := json.Marshal(plan)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.in.Write(append(line, '\n')); err != nil || p.in.Flush() != nil || !p.answered() {
		b.Fatal("the players' process did not start (its stderr above)")
	}
	return p
}

func (p *playersProcess) give() bool {
	if p.ahead == 2*p.batch {
		// Wait until the tables have taken a batch.
		if p.in.Flush() != nil || !p.answered() {
			return false
		}
		p.ahead -= p.batch
	}
	p.ahead++
	return p.in.WriteByte(ack) == nil
}

// answered reads the process's next answer: true for an ack, false when
// it has stopped (its result, if any, is left to read).
func (p *playersProcess) answered() bool {
	c, err := p.out.ReadByte()
	if err == nil && c != ack {
		_ = p.out.UnreadByte()
	}
	return err == nil && c == ack
}

func (p *playersProcess) finish() playersResult {
	// The last actions, then no more.
	_ = p.in.Flush()
	_ = p.stdin.Close()
	for p.answered() {
		// Answers for batches taken since the last one read.
	}
	var res playersResult
	// Read to the end before Wait, which closes the pipe.
	err := json.NewDecoder(p.out).Decode(&res)
	if err = errors.Join(err, p.cmd.Wait()); err != nil && res.Err == "" {
		res.Err = fmt.Sprintf("the players' process: %v (its stderr above)", err)
	}
	return res
}

// playersChild is the players' process: it reads the plan from stdin,
// dials the service and starts the players, answers that it is ready,
// then hands them an action for each byte that follows, answering each
// plan.Batch taken, until stdin ends or a player fails; it ends with the
// players' result.
func playersChild(stdin io.Reader, stdout io.Writer) error {
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return err
	}
	var plan benchPlan
	if err := json.Unmarshal(line, &plan); err != nil {
		return err
	}
	// The service's profile is the benchmark's -cpuprofile; the players'
	// is asked for apart, since they run in this process.
	if f := os.Getenv("TABLE_BENCH_PLAYERS_CPUPROFILE"); f != "" {
		out, err := os.Create(f)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(out); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	conn, err := rpc.Dial(plan.Addr, rpc.Options{})
	if err != nil {
		return err
	}
	defer conn.Close()
	ps, err := startPlayers(plan, tablev1.NewTableServiceClient(conn))
	if err != nil {
		return err
	}
	for taken := 0; ; taken++ {
		if taken%plan.Batch == 0 {
			if _, err := stdout.Write([]byte{ack}); err != nil {
				return err
			}
		}
		if _, err := in.ReadByte(); err != nil || !ps.give() {
			break // no more actions, or a player failed
		}
	}
	return json.NewEncoder(stdout).Encode(ps.finish())
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchService starts the table service the way a table replica runs: on
// PostgreSQL (DATABASE_URL) with Redis locks and Redis Streams events, the
// outbox relayed, behind a gRPC server.
func benchService(b *testing.B, asyncCommit bool, handPause time.Duration) (*testkit.GRPC, tablev1.TableServiceClient, *sqlstore.DB) {
	db := testkit.Postgres(b, table.DBOptions())
	client, prefix := testkit.Redis(b)
	bus := events.NewRedisStreams(client, events.RedisStreamsOptions{Prefix: prefix + "events:"})
	relay := events.NewRelay(db, bus, events.RelayOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	relayDone := make(chan struct{})
	go func() { _ = relay.Run(ctx); close(relayDone) }()
	b.Cleanup(func() { cancel(); <-relayDone })
	// TABLE_BENCH_STATE_COMMITTERS compares group-commit settings
	// (Config.StateCommitters); unset is the service's default.
	committers, _ := strconv.Atoi(os.Getenv("TABLE_BENCH_STATE_COMMITTERS"))
	svc, err := table.New(table.Config{SealKey: sealKey, AsyncActionCommit: asyncCommit, HandPause: handPause, StateCommitters: committers},
		table.Deps{DB: db, Clock: clock.Real{}, Locker: lock.NewRedis(client, lock.RedisOptions{Prefix: prefix + "lock:"}), Relay: relay})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = svc.Close() })
	g := testkit.StartGRPC(b, svc.Register)
	return g, tablev1.NewTableServiceClient(g.Conn), db
}

// restActor serves the table service's REST mapping, a grpc-gateway mux
// in front of c, on a local HTTP server and returns a function that posts
// one action as JSON with the caller's bearer token, the way an app does
// through the gateway, and one that stops the server.
func restActor(c tablev1.TableServiceClient) (actor, func(), error) {
	mux := runtime.NewServeMux()
	if err := tablev1.RegisterTableServiceHandlerClient(context.Background(), mux, c); err != nil {
		return nil, nil, err
	}
	srv := httptest.NewServer(mux)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	return func(ctx context.Context, req *tablev1.ActRequest) (*tablev1.ActResponse, error) {
		tok, _ := bearerOf(ctx)
		body, err := protojson.Marshal(req)
		if err != nil {
			return nil, err
		}
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/tables/"+req.GetTableId()+"/actions", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Authorization", "Bearer "+tok)
		hr.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(hr)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
		}
		var out tablev1.ActResponse
		if err := protojson.Unmarshal(data, &out); err != nil {
			return nil, err
		}
		return &out, nil
	}, srv.Close, nil
}

// bearerOf reads the token testkit's As put in the context.
func bearerOf(ctx context.Context) (string, bool) { return auth.TokenFromContext(ctx) }
