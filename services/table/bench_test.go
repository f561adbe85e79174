package table_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
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
// share of all actions, and the process's CPU per action. The tables are
// set up once: b.Loop hands out the actions.
//
// TABLE_BENCH_PACE (a duration, default 0) is each table's time between
// actions — a player's thinking time. Zero drives every table flat out, a
// closed loop that measures the most actions/s the service sustains (and
// so, by Little's law, latency = tables / throughput); a pace such as 1s
// measures the latency of one action at a realistic room load.
// TABLE_BENCH_ASYNC_COMMIT=1 turns on Config.AsyncActionCommit.
//
// On PostgreSQL it also reports the WAL the server wrote per action
// (walMeter: bytes, records, full-page images and their share of the
// bytes), which unlike the rates does not depend on the machine's load;
// TABLE_BENCH_CHECKPOINT=1 takes a CHECKPOINT before the first action, so
// that the full-page images of a run that starts as a checkpoint does
// are counted too.
func BenchmarkActionsGRPC(b *testing.B) { benchActions(b, false) }

// BenchmarkActionsREST is BenchmarkActionsGRPC with every action sent as
// JSON over HTTP through a grpc-gateway mux (the gateway's translation
// layer) in front of the same gRPC server.
func BenchmarkActionsREST(b *testing.B) { benchActions(b, true) }

func benchActions(b *testing.B, rest bool) {
	nTables := 200
	if v, err := strconv.Atoi(os.Getenv("TABLE_BENCH_TABLES")); err == nil && v > 0 {
		nTables = v
	}
	pace, _ := time.ParseDuration(os.Getenv("TABLE_BENCH_PACE"))
	async := os.Getenv("TABLE_BENCH_ASYNC_COMMIT") == "1"
	g, c, db := benchService(b, async)
	floor := g.As(b, "floor", auth.Floor)

	type benchTable struct {
		id      string
		players [2]context.Context
	}
	tbs := make([]benchTable, nTables)
	for i := range tbs {
		resp, err := c.CreateTable(floor, &tablev1.CreateTableRequest{Name: fmt.Sprintf("bench %d", i), Seats: 2,
			Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1,
			Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
				Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}})
		if err != nil {
			b.Fatal(err)
		}
		tbs[i].id = resp.GetTable().GetTableId()
		for s := range 2 {
			p := fmt.Sprintf("p%d_%d", i, s)
			tbs[i].players[s] = g.As(b, p, auth.Player)
			// Deep stacks: the players only check and call, so nobody busts.
			if _, err := c.Sit(floor, &tablev1.SitRequest{TableId: tbs[i].id, Seat: int32(s), PlayerId: p, Amount: 1_000_000, PostNow: true}); err != nil {
				b.Fatal(err)
			}
		}
	}

	act := func(ctx context.Context, req *tablev1.ActRequest) (*tablev1.ActResponse, error) {
		return c.Act(ctx, req)
	}
	if rest {
		act = restActor(b, c)
	}

	// The actions are handed out by b.Loop, so the function runs once and
	// the tables are set up once (not again for a first run with b.N = 1);
	// a table stops when the tokens run out or another table fails.
	tokens, failed := make(chan struct{}), make(chan struct{})
	var failOnce sync.Once
	lat := make([][]time.Duration, nTables)
	// The actions that ended a hand (the next one was dealt) apart: they
	// write the hand's history and events too, so the tail is theirs.
	endLat := make([][]time.Duration, nTables)
	errs := make(chan error, nTables)
	fail := func(err error) {
		errs <- err
		failOnce.Do(func() { close(failed) })
	}
	var wg sync.WaitGroup
	wal := startWAL(b, db, os.Getenv("TABLE_BENCH_CHECKPOINT") == "1")
	start, cpu0 := time.Now(), processCPU()
	for i := range tbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb := tbs[i]
			st, err := c.GetTableState(floor, &tablev1.GetTableStateRequest{TableId: tb.id})
			if err != nil {
				fail(err)
				return
			}
			state := st.GetState()
			// Spread the tables' first actions over one pace.
			next := time.Now().Add(time.Duration(i) * pace / time.Duration(nTables))
			for {
				if pace > 0 {
					time.Sleep(time.Until(next))
					next = next.Add(pace)
				}
				if _, ok := <-tokens; !ok {
					return
				}
				h := state.GetHand()
				seat := h.GetToAct()
				if seat < 0 {
					fail(fmt.Errorf("table %s: nobody to act", tb.id))
					return
				}
				kind := tablev1.ActionKind_ACTION_KIND_CHECK
				for _, s := range state.GetSeats() {
					if s.GetBet() > state.GetSeats()[seat].GetBet() {
						kind = tablev1.ActionKind_ACTION_KIND_CALL
					}
				}
				t0 := time.Now()
				resp, err := act(tb.players[seat], &tablev1.ActRequest{TableId: tb.id, Kind: kind})
				took := time.Since(t0)
				lat[i] = append(lat[i], took)
				if err != nil {
					fail(fmt.Errorf("table %s seat %d %v: %w", tb.id, seat, kind, err))
					return
				}
				if resp.GetState().GetHand().GetHandNo() != h.GetHandNo() {
					endLat[i] = append(endLat[i], took)
				}
				state = resp.GetState()
			}
		}()
	}
	for b.Loop() {
		select {
		case tokens <- struct{}{}:
			continue
		case <-failed:
		}
		break // reported below
	}
	close(tokens)
	wg.Wait()
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	all, ends := slices.Concat(lat...), slices.Concat(endLat...)
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
	b.ReportMetric(pctOf(ends, 0.50), "hand-end-p50-ms")
	b.ReportMetric(pctOf(ends, 0.99), "hand-end-p99-ms")
	b.ReportMetric(float64(len(ends))/float64(len(all)), "hand-ends/action")
	b.ReportMetric(pct(0.999), "p99.9-ms")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "actions/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	// The CPU this process (service and players) spent per action: on a
	// shared machine, steadier than the rates above, which also wait for
	// cores the other processes hold.
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(all)), "cpu-us/action")
	wal.report(b, len(all))
	b.ReportMetric(float64(nTables), "tables")
	b.ReportMetric(pace.Seconds(), "pace-s")
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
func benchService(b *testing.B, asyncCommit bool) (*testkit.GRPC, tablev1.TableServiceClient, *sqlstore.DB) {
	db := testkit.Postgres(b, table.DBOptions())
	client, prefix := testkit.Redis(b)
	bus := events.NewRedisStreams(client, events.RedisStreamsOptions{Prefix: prefix + "events:"})
	relay := events.NewRelay(db, bus, events.RelayOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	relayDone := make(chan struct{})
	go func() { _ = relay.Run(ctx); close(relayDone) }()
	b.Cleanup(func() { cancel(); <-relayDone })
	svc, err := table.New(table.Config{SealKey: sealKey, AsyncActionCommit: asyncCommit},
		table.Deps{DB: db, Clock: clock.Real{}, Locker: lock.NewRedis(client, lock.RedisOptions{Prefix: prefix + "lock:"}), Relay: relay})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = svc.Close() })
	g := testkit.StartGRPC(b, svc.Register)
	return g, tablev1.NewTableServiceClient(g.Conn), db
}

// restActor serves the table service's REST mapping on a local HTTP server
// and returns a function that posts one action as JSON with the caller's
// bearer token, the way an app does through the gateway.
func restActor(b *testing.B, c tablev1.TableServiceClient) func(context.Context, *tablev1.ActRequest) (*tablev1.ActResponse, error) {
	mux := runtime.NewServeMux()
	if err := tablev1.RegisterTableServiceHandlerClient(context.Background(), mux, c); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
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
	}
}

// bearerOf reads the token testkit's As put in the context.
func bearerOf(ctx context.Context) (string, bool) { return auth.TokenFromContext(ctx) }
