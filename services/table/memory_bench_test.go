package table_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/cardroom/cardroom/platform/auth"
	gamev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/game/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// BenchmarkIdleTableMemory opens b.N cash tables that nobody plays at
// (-benchtime 1000x opens a thousand) on a service like a table replica's
// and reports what each one holds once they are open: heap after a
// collection, and goroutine stack, per table (target < 64 KiB together).
// The gRPC client runs in the same process, but between calls it holds
// next to nothing, so the difference is the service's.
//
// One table is opened before the count starts: the first call of a kind
// builds what every later one shares (the request's validation program,
// message descriptors, the connection's buffers), about a megabyte that
// is not any table's.
func BenchmarkIdleTableMemory(b *testing.B) {
	g, c, _ := benchService(b, false, 0)
	floor := g.As(b, "floor", auth.Floor)
	open := func(name string) {
		if _, err := c.CreateTable(floor, &tablev1.CreateTableRequest{Name: name, Seats: 9,
			Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL,
			Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
				Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}}); err != nil {
			b.Fatal(err)
		}
	}
	open("warm-up")
	before := memNow()
	b.ResetTimer()
	for i := range b.N {
		open(fmt.Sprintf("idle %d", i))
	}
	b.StopTimer()
	reportMem(b, before, memNow(), "table")
}

// BenchmarkWatchStreamMemory opens b.N WatchTable feeds on one table, each
// a different spectator, and reports what each open feed holds once its
// first state has arrived: heap after a collection and goroutine stack per
// stream. Client and server share the process here, so this is both ends
// of a stream together: an upper bound for the service's share.
func BenchmarkWatchStreamMemory(b *testing.B) {
	g, c, _ := benchService(b, false, 0)
	floor := g.As(b, "floor", auth.Floor)
	t, err := c.CreateTable(floor, &tablev1.CreateTableRequest{Name: "watched", Seats: 9,
		Kind: tablev1.TableKind_TABLE_KIND_CASH, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL,
		Game: &gamev1.Game{Variant: gamev1.Variant_VARIANT_HOLDEM, Structure: gamev1.Structure_STRUCTURE_NO_LIMIT,
			Stakes: &gamev1.Stakes{SmallBlind: 1, BigBlind: 2}}})
	if err != nil {
		b.Fatal(err)
	}
	// Tokens are minted before measuring: they are the test's, not a feed's.
	watchers := make([]tablev1.TableService_WatchTableClient, 0, b.N)
	ctxs := make([]context.Context, b.N)
	for i := range b.N {
		ctxs[i] = g.As(b, fmt.Sprintf("rail%d", i), auth.Player)
	}
	watch := func(ctx context.Context) tablev1.TableService_WatchTableClient {
		w, err := c.WatchTable(ctx, &tablev1.WatchTableRequest{TableId: t.GetTable().GetTableId()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Recv(); err != nil {
			b.Fatal(err)
		}
		return w
	}
	// A feed opened and kept before the count starts, as for idle tables:
	// what the first feed builds for all of them is not any feed's.
	warm := watch(g.As(b, "rail-warm-up", auth.Player))
	before := memNow()
	b.ResetTimer()
	for i := range b.N {
		watchers = append(watchers, watch(ctxs[i]))
	}
	b.StopTimer()
	reportMem(b, before, memNow(), "stream")
	runtime.KeepAlive(watchers)
	runtime.KeepAlive(warm)
}

type mem struct{ heap, stack uint64 }

func memNow() mem {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return mem{heap: m.HeapAlloc, stack: m.StackInuse}
}

// reportMem reports the heap and stack grown from before to after per
// one of b.N units.
func reportMem(b *testing.B, before, after mem, unit string) {
	per := func(a, z uint64) float64 { return (float64(z) - float64(a)) / float64(b.N) }
	heap, stack := per(before.heap, after.heap), per(before.stack, after.stack)
	b.ReportMetric(heap, "heap-B/"+unit)
	b.ReportMetric(stack, "stack-B/"+unit)
	b.ReportMetric((heap+stack)/1024, "KiB/"+unit)
}
