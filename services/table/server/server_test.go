package server_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/testkit"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table"
)

var now = time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)

func start(t *testing.T) (*testkit.GRPC, tablev1.TableServiceClient, <-chan *tablev1.TableOpened) {
	t.Helper()
	db := testkit.SQLite(t, table.DBOptions())
	bus := events.NewMemory(events.MemoryOptions{})
	relay := events.NewRelay(db, bus, events.RelayOptions{})
	opened := make(chan *tablev1.TableOpened, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { _ = relay.Run(ctx); done <- struct{}{} }()
	go func() {
		_ = bus.Subscribe(ctx, events.TopicTableOpened, "test", func(_ context.Context, ev events.Event) error {
			var m tablev1.TableOpened
			if err := proto.Unmarshal(ev.Payload, &m); err != nil {
				return err
			}
			opened <- &m
			return nil
		})
		done <- struct{}{}
	}()
	t.Cleanup(func() { cancel(); <-done; <-done })
	svc, err := table.New(table.Config{SealKey: make([]byte, 32)}, table.Deps{DB: db, Clock: clock.NewFake(now), Locker: lock.NewLocal(), Relay: relay})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	g := testkit.StartGRPC(t, svc.Register)
	return g, tablev1.NewTableServiceClient(g.Conn), opened
}

func plo() *tablev1.CreateTableRequest {
	return &tablev1.CreateTableRequest{
		Name: "PLO 1/2", Seats: 6, Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_OMAHA, Structure: gamev1.Structure_STRUCTURE_POT_LIMIT,
			Stakes: &gamev1.Stakes{SmallBlind: 100, BigBlind: 200}},
	}
}

func TestCreateListGet(t *testing.T) {
	t.Parallel()
	g, c, opened := start(t)
	created, err := c.CreateTable(g.As(t, "floor-1", auth.Floor), plo())
	if err != nil {
		t.Fatal(err)
	}
	tb := created.GetTable()
	if tb.GetTableId() == "" || tb.GetGame().GetVariant() != gamev1.Variant_VARIANT_OMAHA ||
		tb.GetGame().GetStakes().GetBigBlind() != 200 || tb.GetSeats() != 6 || tb.GetMode() != tablev1.TableMode_TABLE_MODE_DIGITAL {
		t.Fatalf("created %v", tb)
	}
	select {
	case ev := <-opened:
		if ev.GetTableId() != tb.GetTableId() || ev.GetSeats() != 6 || ev.GetGame().GetVariant() != gamev1.Variant_VARIANT_OMAHA {
			t.Fatalf("table.opened = %v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no table.opened event")
	}
	player := g.As(t, "alice", auth.Player)
	got, err := c.GetTable(player, &tablev1.GetTableRequest{TableId: tb.GetTableId()})
	if err != nil || got.GetTable().GetName() != "PLO 1/2" {
		t.Fatalf("Get = %v, %v", got, err)
	}
	list, err := c.ListTables(player, &tablev1.ListTablesRequest{})
	if err != nil || len(list.GetTables()) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
}

func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	g, c, opened := start(t)
	floor := g.As(t, "f", auth.Floor)
	stud := plo()
	stud.Game = &gamev1.Game{Variant: gamev1.Variant_VARIANT_STUD, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
		Stakes: &gamev1.Stakes{Ante: 100, BringIn: 200}}
	tooMany := plo()
	tooMany.Seats = 11
	tests := []struct {
		name       string
		ctx        context.Context
		req        *tablev1.CreateTableRequest
		want       codes.Code
		wantReason string
		wantRule   string
	}{
		{"no token", t.Context(), plo(), codes.Unauthenticated, "", ""},
		{"player may not open tables", g.As(t, "alice", auth.Player), plo(), codes.PermissionDenied, "", ""},
		{"eleven seats (protovalidate)", floor, tooMany, codes.InvalidArgument, "", ""},
		{"TP-27 no-limit stud", floor, stud, codes.InvalidArgument, "STUD_IS_FIXED_LIMIT", "TP-27"},
	}
	for _, tt := range tests {
		_, err := c.CreateTable(tt.ctx, tt.req)
		st := status.Convert(err)
		if st.Code() != tt.want {
			t.Errorf("%s: code = %v (%v), want %v", tt.name, st.Code(), err, tt.want)
			continue
		}
		if tt.wantReason == "" {
			continue
		}
		var info *errdetails.ErrorInfo
		for _, d := range st.Details() {
			if i, ok := d.(*errdetails.ErrorInfo); ok {
				info = i
			}
		}
		if info == nil || info.GetReason() != tt.wantReason || info.GetMetadata()["rule_id"] != tt.wantRule {
			t.Errorf("%s: error info = %v", tt.name, info)
		}
	}
	list, err := c.ListTables(floor, &tablev1.ListTablesRequest{})
	if err != nil || len(list.GetTables()) != 0 {
		t.Fatalf("refused creates left %v, %v", list, err)
	}
	if _, err := c.GetTable(floor, &tablev1.GetTableRequest{TableId: "missing"}); status.Code(err) != codes.NotFound {
		t.Fatalf("Get(missing) = %v", err)
	}
	select {
	case ev := <-opened:
		t.Fatalf("refused create published %v", ev)
	default:
	}
}
