package table_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

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
	"github.com/cardroom/cardroom/services/table/runner"
	"github.com/cardroom/cardroom/services/table/server"
)

// cluster is several table replicas in one test process, as in a
// deployment: one database, one Redis (the test's own prefix), one signing
// key, a gRPC listener each, and one in-memory span exporter for them all.
type cluster struct {
	t      *testing.T
	db     *sqlstore.DB
	redis  *redis.Client
	prefix string
	clock  *clock.Fake
	issuer *auth.Issuer
	verify *auth.Verifier
	spans  *tracetest.InMemoryExporter
	ends   *spanEnds
	tp     *sdktrace.TracerProvider
	opts   rpc.Options
}

// spanEnds wakes whoever waits for spans when one ends. A call's server
// span ends after the client has its answer (otelgrpc ends it on the
// stats handler's End event), so a test counting a trace's spans waits
// for them instead of racing the server.
type spanEnds struct {
	mu    sync.Mutex
	ended chan struct{} // closed and replaced at every span end
}

func (e *spanEnds) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (e *spanEnds) Shutdown(context.Context) error                  { return nil }
func (e *spanEnds) ForceFlush(context.Context) error                { return nil }

func (e *spanEnds) OnEnd(sdktrace.ReadOnlySpan) {
	e.mu.Lock()
	defer e.mu.Unlock()
	close(e.ended)
	e.ended = make(chan struct{})
}

func (e *spanEnds) next() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ended
}

// traceSpans returns the spans of trace id once count(spans) is true,
// waiting for span ends (a minute at most, then the test fails).
func (c *cluster) traceSpans(t *testing.T, id trace.TraceID, count func([]sdktrace.ReadOnlySpan) bool) []sdktrace.ReadOnlySpan {
	t.Helper()
	limit := time.After(time.Minute)
	for {
		ended := c.ends.next() // before the snapshot, so no end is missed
		var spans []sdktrace.ReadOnlySpan
		for _, s := range c.spans.GetSpans().Snapshots() {
			if s.SpanContext().TraceID() == id {
				spans = append(spans, s)
			}
		}
		if count(spans) {
			return spans
		}
		select {
		case <-ended:
		case <-limit:
			t.Fatalf("trace %s: still %d spans after a minute", id, len(spans))
		}
	}
}

// answered reports whether the first server's span of the call made
// under root has ended: a server span whose parent is a client span that
// root is the parent of. Its own client spans (a forwarded call) ended
// before it; the span of the server it forwarded to may not have.
func answered(root trace.SpanID) func([]sdktrace.ReadOnlySpan) bool {
	return func(spans []sdktrace.ReadOnlySpan) bool {
		calls := map[trace.SpanID]bool{}
		for _, s := range spans {
			if s.SpanKind() == trace.SpanKindClient && s.Parent().SpanID() == root {
				calls[s.SpanContext().SpanID()] = true
			}
		}
		for _, s := range spans {
			if s.SpanKind() == trace.SpanKindServer && calls[s.Parent().SpanID()] {
				return true
			}
		}
		return false
	}
}

// serverSpans counts the server spans among spans.
func serverSpans(spans []sdktrace.ReadOnlySpan) int {
	n := 0
	for _, s := range spans {
		if s.SpanKind() == trace.SpanKindServer {
			n++
		}
	}
	return n
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	issuer, verifier := testkit.Keys(t)
	spans := tracetest.NewInMemoryExporter()
	ends := &spanEnds{ended: make(chan struct{})}
	// The exporter first: a span is stored before its end is signalled.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans), sdktrace.WithSpanProcessor(ends))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	rc, prefix := testkit.Redis(t)
	return &cluster{t: t, db: testkit.Postgres(t, table.DBOptions()), redis: rc, prefix: prefix, clock: clock.NewFake(t0),
		issuer: issuer, verify: verifier, spans: spans, ends: ends, tp: tp,
		opts: rpc.Options{TracerProvider: tp, Propagator: propagation.TraceContext{}}}
}

func (c *cluster) locker() *lock.Redis {
	return lock.NewRedis(c.redis, lock.RedisOptions{Prefix: c.prefix, RetryInterval: 10 * time.Millisecond})
}

// replica is one table service process of the cluster.
type replica struct {
	addr string
	c    tablev1.TableServiceClient
	stop func()
}

// replica starts a table service on its own listener, advertising the
// listener's address with its leases.
func (c *cluster) replica(decks uint64) *replica {
	t := c.t
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	svc, err := table.New(table.Config{SealKey: sealKey, AdvertiseAddr: table.AdvertiseAddr("", addr)},
		table.Deps{DB: c.db, Clock: c.clock, Locker: c.locker(), Shuffle: seededDecks(decks),
			Relay: events.NewRelay(c.db, events.NewMemory(events.MemoryOptions{}), events.RelayOptions{}), Forward: c.opts})
	if err != nil {
		t.Fatal(err)
	}
	so := c.opts
	so.Verifier = c.verify
	srv := rpc.NewServer(so)
	svc.Register(srv)
	go func() { _ = srv.Serve(lis) }()
	conn, err := rpc.Dial(addr, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = conn.Close()
		rpc.Shutdown(srv, time.Second)
		_ = svc.Close()
	}
	t.Cleanup(stop)
	return &replica{addr: addr, c: tablev1.NewTableServiceClient(conn), stop: stop}
}

func (c *cluster) as(sub string, role auth.Role) context.Context {
	c.t.Helper()
	tok, err := c.issuer.Mint(sub, []auth.Role{role}, time.Hour)
	if err != nil {
		c.t.Fatal(err)
	}
	return auth.WithToken(c.t.Context(), tok)
}

func (c *cluster) holder(id string) string {
	c.t.Helper()
	h, _, err := c.locker().Holder(c.t.Context(), runner.LockKey(id))
	if err != nil {
		c.t.Fatal(err)
	}
	return h
}

func (c *cluster) state(r *replica, id, player string) *tablev1.TableState {
	c.t.Helper()
	resp, err := r.c.GetTableState(c.as(player, auth.Player), &tablev1.GetTableStateRequest{TableId: id})
	if err != nil {
		c.t.Fatalf("state of %s for %s: %v", id, player, err)
	}
	return resp.GetState()
}

// hiddenFrom fails when ms show a hole card of a seat other than seat
// that was not shown; it counts the viewer's own cards it saw.
func hiddenFrom(t *testing.T, who string, seat int32, ms []*tablev1.WatchTableResponse) (own int) {
	t.Helper()
	for _, m := range ms {
		for _, s := range m.GetState().GetSeats() {
			for _, card := range s.GetCards() {
				switch {
				case card == "??":
				case s.GetSeat() == seat:
					own++
				case !s.GetShown():
					t.Fatalf("%s saw seat %d's unshown card", who, s.GetSeat())
				}
			}
		}
		for _, ev := range m.GetEvents() {
			for _, card := range ev.GetCards() {
				if ev.GetKind() == "deal_hole" && card != "??" && ev.GetSeat() != seat {
					t.Fatalf("%s saw seat %d's hole card dealt", who, ev.GetSeat())
				}
			}
		}
	}
	return own
}

// caughtUp waits until every feed has shown sequence seq.
func caughtUp(t *testing.T, seq int64, feeds ...func() []*tablev1.WatchTableResponse) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, func() error {
		for i, feed := range feeds {
			if ms := feed(); len(ms) == 0 || ms[len(ms)-1].GetState().GetSequence() < seq {
				return fmt.Errorf("feed %d has not shown sequence %d", i, seq)
			}
		}
		return nil
	})
}

// TestForward_AnyReplicaServesAnyTable: replica A deals a table; every
// call about it through replica B — seating, acting, reading the state,
// watching — is forwarded to A and answers as A does, per viewer (each
// player sees their own hole cards only), in the caller's trace. After A
// stops and frees its lease, B claims the table and serves it itself.
func TestForward_AnyReplicaServesAnyTable(t *testing.T) {
	t.Parallel()
	cl := newCluster(t)
	a, b := cl.replica(21), cl.replica(21)
	floor := cl.as("floor-1", auth.Floor)

	created, err := a.c.CreateTable(floor, &tablev1.CreateTableRequest{Name: "NL 1/2", Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH,
		Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1, Game: holdem()})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetTable().GetTableId()
	if _, err := a.c.Sit(floor, &tablev1.SitRequest{TableId: id, Seat: 0, PlayerId: "ann", Amount: 200, PostNow: true}); err != nil {
		t.Fatal(err)
	}
	if h := cl.holder(id); h != a.addr {
		t.Fatalf("after a sit-down through A the lease names %q, want A %s", h, a.addr)
	}

	// Watch through B (forwarded) and through A (local) before the hand.
	annB, stop1 := watch(cl.as("ann", auth.Player), t, b.c, id)
	defer stop1()
	bobB, stop2 := watch(cl.as("bob", auth.Player), t, b.c, id)
	defer stop2()
	annA, stop3 := watch(cl.as("ann", auth.Player), t, a.c, id)
	defer stop3()

	// bob sits through B: forwarded; A still deals the table.
	if _, err := b.c.Sit(floor, &tablev1.SitRequest{TableId: id, Seat: 1, PlayerId: "bob", Amount: 200, PostNow: true}); err != nil {
		t.Fatalf("sit through B: %v", err)
	}
	if h := cl.holder(id); h != a.addr {
		t.Fatalf("B took the table (lease names %q), want it forwarded to A %s", h, a.addr)
	}
	for _, p := range []string{"ann", "bob"} {
		viaA, viaB := cl.state(a, id, p), cl.state(b, id, p)
		if !proto.Equal(viaA, viaB) {
			t.Fatalf("%s's state through B differs from A:\n%v\n%v", p, viaB, viaA)
		}
		if viaB.GetHand() == nil {
			t.Fatal("no hand dealt with two players")
		}
	}

	// The player in turn acts through B, in a traced request.
	st := cl.state(b, id, "ann")
	who := playerInTurn(st)
	legal := cl.state(b, id, who).GetHand().GetLegal()
	ctx, root := cl.tp.Tracer("test").Start(cl.as(who, auth.Player), "act")
	acted, err := b.c.Act(ctx, &tablev1.ActRequest{TableId: id, Kind: legal[0].GetKind(), Amount: legal[0].GetMin()})
	root.End()
	if err != nil {
		t.Fatalf("act through B: %v", err)
	}
	if viaA := cl.state(a, id, who); !proto.Equal(viaA, acted.GetState()) {
		t.Fatalf("B's act answer differs from A's state:\n%v\n%v", acted.GetState(), viaA)
	}
	// A's span may end just after B has answered (see TestForward_NeverTwice).
	answeredB := answered(root.SpanContext().SpanID())
	spans := cl.traceSpans(t, root.SpanContext().TraceID(), func(s []sdktrace.ReadOnlySpan) bool { return answeredB(s) && serverSpans(s) >= 2 })
	checkForwardTrace(t, spans, root.SpanContext().TraceID(), tablev1.TableService_Act_FullMethodName)

	// The feeds through B carry the changes, as each viewer may see them.
	last := cl.state(a, id, "ann").GetSequence()
	caughtUp(t, last, annB, bobB, annA)
	if own := hiddenFrom(t, "ann via B", 0, annB()); own == 0 {
		t.Fatal("ann never saw her own cards through B")
	}
	if own := hiddenFrom(t, "bob via B", 1, bobB()); own == 0 {
		t.Fatal("bob never saw his own cards through B")
	}
	final := func(ms []*tablev1.WatchTableResponse) *tablev1.TableState { return ms[len(ms)-1].GetState() }
	if !proto.Equal(final(annB()), final(annA())) {
		t.Fatalf("ann's feed through B ends elsewhere than through A:\n%v\n%v", final(annB()), final(annA()))
	}

	// A stops and frees its lease: B's feeds end, and B claims the table.
	a.stop()
	after := cl.state(b, id, "ann")
	if h := cl.holder(id); h != b.addr {
		t.Fatalf("after A stopped the lease names %q, want B %s", h, b.addr)
	}
	if after.GetSequence() != last {
		t.Fatalf("B resumed at sequence %d, A left it at %d", after.GetSequence(), last)
	}
	who = playerInTurn(after)
	legal = cl.state(b, id, who).GetHand().GetLegal()
	if _, err := b.c.Act(cl.as(who, auth.Player), &tablev1.ActRequest{TableId: id, Kind: legal[0].GetKind(), Amount: legal[0].GetMin()}); err != nil {
		t.Fatalf("act at B after the take-over: %v", err)
	}
}

// checkForwardTrace: the forwarded call is one trace — the test's call,
// B's server span, B's forwarding client span under it, and A's server
// span under that.
func checkForwardTrace(t *testing.T, all []sdktrace.ReadOnlySpan, id trace.TraceID, method string) {
	t.Helper()
	name := strings.TrimPrefix(method, "/")
	var servers, clients []sdktrace.ReadOnlySpan
	for _, s := range all {
		if s.SpanContext().TraceID() != id || s.Name() != name {
			continue
		}
		switch s.SpanKind() {
		case trace.SpanKindServer:
			servers = append(servers, s)
		case trace.SpanKindClient:
			clients = append(clients, s)
		}
	}
	if len(servers) != 2 || len(clients) != 2 {
		t.Fatalf("trace of a forwarded %s: %d server and %d client spans, want 2 and 2 (test → B → A)", name, len(servers), len(clients))
	}
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range slices.Concat(servers, clients) {
		byID[s.SpanContext().SpanID()] = s
	}
	// Exactly one server span (A's) has a parent chain client → server →
	// client.
	chained := 0
	for _, s := range servers {
		fwd, ok := byID[s.Parent().SpanID()]
		if !ok || fwd.SpanKind() != trace.SpanKindClient {
			continue
		}
		if bSrv, ok := byID[fwd.Parent().SpanID()]; ok && bSrv.SpanKind() == trace.SpanKindServer {
			chained++
		}
	}
	if chained != 1 {
		t.Fatalf("A's server span does not hang under B's forwarding span under B's server span")
	}
}

// TestForward_NeverTwice: a call marked as forwarded is served where it
// lands. The lease of the table names A but A does not deal it (a lease
// nobody renews any more, say): B forwards an unmarked call to A once,
// and A — whose own address the lease names — does not send it on; a
// marked call reaching B is not forwarded at all. Both answer
// TABLE_OWNED_ELSEWHERE after the claim wait, so the client retries.
func TestForward_NeverTwice(t *testing.T) {
	t.Parallel()
	cl := newCluster(t)
	a, b := cl.replica(3), cl.replica(3)
	created, err := a.c.CreateTable(cl.as("floor-1", auth.Floor), &tablev1.CreateTableRequest{Name: "NL 1/2", Seats: 6,
		Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1, Game: holdem()})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetTable().GetTableId()
	// A lease held by no running replica, naming A. It outlives the test
	// (its keys go with it): the parallel subtests may wait their turn for
	// minutes on a loaded machine, and an expired lease would let B claim
	// the table.
	if err := cl.redis.Set(t.Context(), cl.prefix+runner.LockKey(id), "0badc0de "+a.addr, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		marked  bool
		servers int // server spans in the call's trace
	}{
		{"unmarked call is forwarded once", false, 2},
		{"marked call is not forwarded", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, root := cl.tp.Tracer("test").Start(cl.as("ann", auth.Player), tc.name)
			if tc.marked {
				ctx = metadata.AppendToOutgoingContext(ctx, server.ForwardedHeader, "elsewhere:1")
			}
			_, err := b.c.GetTableState(ctx, &tablev1.GetTableStateRequest{TableId: id})
			root.End()
			if r, _ := reason(err); r != "TABLE_OWNED_ELSEWHERE" {
				t.Fatalf("GetTableState: %v, want TABLE_OWNED_ELSEWHERE", err)
			}
			// B has answered; a forwarded call's span at A may end a little
			// later (its stats handler runs after A has sent the answer), so
			// the forwarded case waits for both. That the marked call was
			// not forwarded shows in B's spans, complete once B answered:
			// the only client span is the test's own.
			answeredB := answered(root.SpanContext().SpanID())
			spans := cl.traceSpans(t, root.SpanContext().TraceID(), func(s []sdktrace.ReadOnlySpan) bool {
				return answeredB(s) && serverSpans(s) >= tc.servers
			})
			clients := 0
			for _, sp := range spans {
				if sp.SpanKind() == trace.SpanKindClient {
					clients++
				}
			}
			if tc.marked && clients != 1 {
				t.Fatalf("%d client spans in the marked call's trace, want only the test's: B forwarded it", clients)
			}
			if n := serverSpans(spans); n != tc.servers {
				t.Fatalf("%d server spans in the call's trace, want %d", n, tc.servers)
			}
		})
	}
}

// TestForward_WatchEndsWhenOwnerStops: a feed forwarded from B to A ends
// with A's answer when A stops (WATCH_ENDED or TABLE_OWNED_ELSEWHERE, both
// retried), and watching again through B then claims the table at B.
func TestForward_WatchEndsWhenOwnerStops(t *testing.T) {
	t.Parallel()
	cl := newCluster(t)
	a, b := cl.replica(5), cl.replica(5)
	floor := cl.as("floor-1", auth.Floor)
	created, err := a.c.CreateTable(floor, &tablev1.CreateTableRequest{Name: "NL 1/2", Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH,
		Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1, Game: holdem()})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetTable().GetTableId()
	if _, err := a.c.Sit(floor, &tablev1.SitRequest{TableId: id, Seat: 0, PlayerId: "ann", Amount: 200}); err != nil {
		t.Fatal(err)
	}
	stream, err := b.c.WatchTable(cl.as("ann", auth.Player), &tablev1.WatchTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatalf("first message through B: %v", err)
	}
	a.stop()
	for {
		_, err := stream.Recv()
		if err == nil {
			continue
		}
		if r, _ := reason(err); r != "WATCH_ENDED" && r != "TABLE_OWNED_ELSEWHERE" {
			t.Fatalf("the forwarded feed ended with %v, want a retryable reason", err)
		}
		break
	}
	again, err := b.c.WatchTable(cl.as("ann", auth.Player), &tablev1.WatchTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	first, err := again.Recv()
	if err != nil || first.GetState().GetSeats()[0].GetPlayerId() != "ann" {
		t.Fatalf("watching again through B: %v %v", first, err)
	}
	if h := cl.holder(id); h != b.addr {
		t.Fatalf("the lease names %q, want B %s", h, b.addr)
	}
}

// TestAdvertiseAddr: the configured address wins; a listener on a named
// host is reachable there; one on every interface is advertised at a
// routable address of this host with its port.
func TestAdvertiseAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ configured, listen, want string }{
		{"10.1.2.3:9090", "[::]:9090", "10.1.2.3:9090"},
		{"", "127.0.0.1:4000", "127.0.0.1:4000"},
		{"", "table-0.cardroom:9090", "table-0.cardroom:9090"},
		{"", "not an address", ""},
	} {
		if got := table.AdvertiseAddr(tc.configured, tc.listen); got != tc.want {
			t.Errorf("AdvertiseAddr(%q, %q) = %q, want %q", tc.configured, tc.listen, got, tc.want)
		}
	}
	for _, listen := range []string{"[::]:9090", "0.0.0.0:9090", ":9090"} {
		got := table.AdvertiseAddr("", listen)
		if got == "" {
			continue // a host without a routable address advertises none
		}
		host, port, err := net.SplitHostPort(got)
		if ip := net.ParseIP(host); err != nil || port != "9090" || ip == nil || ip.IsLoopback() || ip.IsUnspecified() {
			t.Errorf("AdvertiseAddr(\"\", %q) = %q, want a routable IP with port 9090", listen, got)
		}
	}
}

func holdem() *gamev1.Game {
	return &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
		Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}
}
