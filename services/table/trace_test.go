package table_test

import (
	"context"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/services/table"
)

// tracedWallet records a span for each cash-out, as the wallet's own gRPC
// server would, under whatever trace the table's call carries.
type tracedWallet struct {
	*fakeWallet
	tracer trace.Tracer
}

func (w tracedWallet) CashOut(ctx context.Context, in *walletv1.CashOutRequest, opts ...grpc.CallOption) (*walletv1.CashOutResponse, error) {
	ctx, span := w.tracer.Start(ctx, "wallet.CashOut")
	defer span.End()
	return w.fakeWallet.CashOut(ctx, in, opts...)
}

// TestLeave_CashOutInRequestTrace: a player who leaves between hands is
// paid out during the request, and the wallet's CashOut span belongs to
// the trace of the leave request.
func TestLeave_CashOutInRequestTrace(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	opts := rpc.Options{TracerProvider: tp, Propagator: propagation.TraceContext{}}

	db := testkit.SQLite(t, table.DBOptions())
	w := tracedWallet{fakeWallet: newFakeWallet(map[string]int64{"ann": 1000}), tracer: tp.Tracer("wallet")}
	svc, err := table.New(table.Config{SealKey: sealKey}, table.Deps{DB: db, Clock: clock.NewFake(t0), Locker: lock.NewLocal(),
		Relay: events.NewRelay(db, events.NewMemory(events.MemoryOptions{}), events.RelayOptions{}), Wallet: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	issuer, verifier := testkit.Keys(t)
	so := opts
	so.Verifier = verifier
	srv := rpc.NewServer(so)
	svc.Register(srv)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	conn, err := rpc.Dial(lis.Addr().String(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		rpc.Shutdown(srv, time.Second)
	})
	c := tablev1.NewTableServiceClient(conn)
	as := func(sub string, role auth.Role) context.Context {
		tok, err := issuer.Mint(sub, []auth.Role{role}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return auth.WithToken(t.Context(), tok)
	}

	created, err := c.CreateTable(as("floor-1", auth.Floor), &tablev1.CreateTableRequest{
		Name: "NL 1/2", Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL, ActionSeconds: -1,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT, Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetTable().GetTableId()
	if _, err := c.Sit(as("floor-1", auth.Floor), &tablev1.SitRequest{TableId: id, Seat: 0, PlayerId: "ann", Amount: 200}); err != nil {
		t.Fatal(err)
	}
	// ann is alone: no hand, so she leaves at once and is paid now.
	ctx, root := tp.Tracer("test").Start(as("ann", auth.Player), "POST /v1/tables/{table_id}/seats/{seat}:leave")
	resp, err := c.Leave(ctx, &tablev1.LeaveRequest{TableId: id, Seat: 0})
	root.End()
	if err != nil || !resp.GetLeft() || resp.GetStack() != 200 {
		t.Fatalf("leave: %v, %v", resp, err)
	}
	var cashOuts []sdktrace.ReadOnlySpan
	for _, s := range spans.GetSpans().Snapshots() {
		if s.Name() == "wallet.CashOut" {
			cashOuts = append(cashOuts, s)
		}
	}
	if len(cashOuts) != 1 {
		t.Fatalf("%d wallet.CashOut spans, want 1", len(cashOuts))
	}
	if got, want := cashOuts[0].SpanContext().TraceID(), root.SpanContext().TraceID(); got != want {
		t.Fatalf("the cash-out is in trace %s, not in the leave request's trace %s", got, want)
	}
	if !cashOuts[0].Parent().IsValid() {
		t.Fatal("the cash-out span has no parent")
	}
}
