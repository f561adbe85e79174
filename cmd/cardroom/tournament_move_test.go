package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/rpc"
	"github.com/cardroom/cardroom/platform/testkit"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	"github.com/cardroom/cardroom/services/table/runner"
)

// tableReplica is one `cardroom table` process of a distributed table
// service: every replica shares the PostgreSQL database, Redis, the token
// key and the seal key, and listens on its own gRPC address.
type tableReplica struct {
	t       *testing.T
	bin     string
	env     []string
	addr    string
	cmd     *exec.Cmd
	waitErr chan error
	stderr  bytes.Buffer
	conn    *grpc.ClientConn
}

func newTableReplica(t *testing.T, s *suite) *tableReplica {
	t.Helper()
	r := &tableReplica{t: t, bin: s.bin, addr: freeAddr(t)}
	for _, kv := range s.env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "CARDROOM_GRPC_ADDR" && k != "CARDROOM_METRICS_ADDR" && k != "CARDROOM_DATA_DIR" {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env, "CARDROOM_GRPC_ADDR="+r.addr, "CARDROOM_METRICS_ADDR="+freeAddr(t), "CARDROOM_DATA_DIR="+filepath.Join(t.TempDir(), "data"))
	conn, err := rpc.Dial(r.addr, rpc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.conn = conn
	t.Cleanup(func() {
		conn.Close()
		r.kill()
	})
	return r
}

// start runs the replica and waits until its table service is serving.
func (r *tableReplica) start() {
	t := r.t
	t.Helper()
	r.stderr.Reset()
	r.cmd = exec.Command(r.bin, "table")
	r.cmd.Env, r.cmd.Stderr = r.env, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitErr = make(chan error, 1)
	go func() { r.waitErr <- r.cmd.Wait() }()
	health := healthpb.NewHealthClient(r.conn)
	testkit.Eventually(t, 60*time.Second, func() error {
		select {
		case err := <-r.waitErr:
			t.Fatalf("cardroom table exited: %v\nstderr:\n%s", err, r.stderr.String())
		default:
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: tablev1.TableService_ServiceDesc.ServiceName})
		if err != nil {
			return err
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			return fmt.Errorf("table service %s", resp.GetStatus())
		}
		return nil
	})
}

// kill ends the process with SIGKILL: no lease is released, nothing is
// flushed.
func (r *tableReplica) kill() {
	if r.cmd == nil || r.cmd.ProcessState != nil {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.waitErr
}

func (r *tableReplica) tables() tablev1.TournamentTableServiceClient {
	return tablev1.NewTournamentTableServiceClient(r.conn)
}

// retryable reports whether a call failed because the table is changing
// hands (its owner was killed and the lease has not run out yet) or the
// replica asked is down.
func retryable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.Aborted, codes.DeadlineExceeded:
		return true
	}
	return false
}

// TestTournamentMoveSurvivesKill_TR23 runs the table service as two
// `cardroom table` replicas on Redis and PostgreSQL and moves entrants
// back and forth between two tournament tables (each run by one replica,
// the calls sent to the other and forwarded), SIGKILLing the replica that
// runs the table the entrant leaves while the move waits for the end of
// the hand, and the one that runs the table the entrant joins while its
// MoveIn is in flight. After every step the chips on both tables plus the
// chips in transit are the chips issued, in one snapshot; every move ends
// delivered exactly once, and each entrant sits at one table.
func TestTournamentMoveSurvivesKill_TR23(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the table service")
	}
	t.Parallel()
	prefix := testkit.RedisPrefix(t)
	s := newSuite(t, "REDIS_URL="+testkit.RedisURL(t), "CARDROOM_REDIS_PREFIX="+prefix, "DATABASE_URL="+postgresDatabase(t),
		"CARDROOM_JWT_KEY=a-test-signing-key-of-at-least-32-bytes",
		"CARDROOM_TABLE_SEAL_KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
		"CARDROOM_LOCK_TTL=2s", "CARDROOM_TABLE_ACTION_TIMEOUT=200ms")
	replicas := []*tableReplica{newTableReplica(t, s), newTableReplica(t, s)}
	for _, r := range replicas {
		r.start() // one after the other: the first migrates the database
	}
	ctx := auth.WithToken(t.Context(), s.token("cardroom-tournament", "service"))
	rc, _ := testkit.Redis(t)
	locks := lock.NewRedis(rc, lock.RedisOptions{Prefix: prefix + "lock:"})
	owner := func(table string) *tableReplica {
		holder, _, err := locks.Holder(ctx, runner.LockKey(table))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range replicas {
			if r.addr == holder {
				return r
			}
		}
		return nil
	}
	other := func(r *tableReplica) *tableReplica {
		if r == replicas[0] {
			return replicas[1]
		}
		return replicas[0]
	}
	// call retries a control until a replica that runs answers it.
	call := func(what string, fn func(tc tablev1.TournamentTableServiceClient) error) {
		t.Helper()
		testkit.Eventually(t, 30*time.Second, func() error {
			var last error
			for _, r := range replicas {
				if r.cmd.ProcessState != nil {
					continue
				}
				err := fn(r.tables())
				if err == nil || !retryable(err) {
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					return nil
				}
				last = err
			}
			return fmt.Errorf("%s: %w", what, last)
		})
	}

	const ev = "kill-9"
	const issued = 5 * 3000
	var tabs [2]string
	for i := range tabs {
		call("open", func(tc tablev1.TournamentTableServiceClient) error {
			resp, err := tc.OpenTournamentTable(ctx, &tablev1.OpenTournamentTableRequest{IdempotencyKey: fmt.Sprintf("trn/%s/table/%d", ev, i+1),
				TournamentId: ev, Name: fmt.Sprintf("T%d", i+1), Game: nlhe50100Proto(), Seats: 9, Mode: tablev1.TableMode_TABLE_MODE_DIGITAL})
			tabs[i] = resp.GetTable().GetTableId()
			return err
		})
		// Each replica runs one table: the first call about it claims it.
		if _, err := replicas[i].tables().GetTournamentTable(ctx, &tablev1.GetTournamentTableRequest{TableId: tabs[i]}); err != nil {
			t.Fatal(err)
		}
	}
	seated := map[string]int{"ann": 0, "bob": 0, "cat": 0, "dan": 1, "eve": 1}
	for _, p := range slices.Sorted(maps.Keys(seated)) {
		call("seat "+p, func(tc tablev1.TournamentTableServiceClient) error {
			n := 0
			for q, at := range seated {
				if at == seated[p] && q < p {
					n++
				}
			}
			_, err := tc.SeatEntrant(ctx, &tablev1.SeatEntrantRequest{TableId: tabs[seated[p]], IdempotencyKey: "trn/" + ev + "/seat/" + p,
				PlayerId: p, Seat: int32(n), Stack: 3000})
			return err
		})
	}
	count := func(when string) {
		t.Helper()
		call("count "+when, func(tc tablev1.TournamentTableServiceClient) error {
			c, err := tc.CountTournamentChips(ctx, &tablev1.CountTournamentChipsRequest{TournamentId: ev})
			if err == nil && c.GetTotal() != issued {
				t.Fatalf("%s: %d chips on the tables + %d in transit = %d, issued %d (%v)", when, c.GetOnTables(), c.GetChipsInTransit(),
					c.GetTotal(), issued, c)
			}
			return err
		})
	}
	count("seated")

	rng := rand.New(rand.NewPCG(23, 5))
	for n := 1; n <= 4; n++ {
		// The entrant and the tables of this move.
		from := n % 2
		var who string
		for _, p := range slices.Sorted(maps.Keys(seated)) {
			if seated[p] == from {
				who = p
				break
			}
		}
		to := 1 - from
		var st *tablev1.TournamentTableStatus
		call("status of the target", func(tc tablev1.TournamentTableServiceClient) error {
			resp, err := tc.GetTournamentTable(ctx, &tablev1.GetTournamentTableRequest{TableId: tabs[to]})
			st = resp.GetStatus()
			return err
		})
		seat := int32(slices.IndexFunc(st.GetSeats(), func(s *tablev1.TournamentSeat) bool { return s.GetPlayerId() == "" }))
		move := fmt.Sprintf("trn/%s/move/%d", ev, n)

		// Step 1, sent to the replica that does not run the table (the
		// call is forwarded); its owner is killed at once.
		src := owner(tabs[from])
		if src == nil {
			t.Fatalf("move %d: nobody runs table %s", n, tabs[from])
		}
		out, err := other(src).tables().MoveOut(ctx, &tablev1.MoveOutRequest{TableId: tabs[from], MoveId: move, PlayerId: who,
			ToTableId: tabs[to], ToSeat: seat})
		if err != nil {
			t.Fatalf("move %d out: %v", n, err)
		}
		src.kill()
		t.Logf("move %d: %s out of %s (%s), its replica killed", n, who, tabs[from], out.GetMove().GetState())
		count(fmt.Sprintf("move %d ordered, %s killed", n, src.addr))
		var m *tablev1.Move
		testkit.Eventually(t, 30*time.Second, func() error {
			resp, err := other(src).tables().ListMoves(ctx, &tablev1.ListMovesRequest{TournamentId: ev})
			if err != nil {
				return err
			}
			i := slices.IndexFunc(resp.GetMoves(), func(x *tablev1.Move) bool { return x.GetMoveId() == move })
			if i < 0 {
				t.Fatalf("move %d is not recorded", n)
			}
			if m = resp.GetMoves()[i]; m.GetState() != tablev1.MoveState_MOVE_STATE_IN_TRANSIT {
				// The table's hand goes on at the surviving replica once
				// the lease runs out; the entrant leaves when it ends.
				_, _ = other(src).tables().GetTournamentTable(ctx, &tablev1.GetTournamentTableRequest{TableId: tabs[from]})
				return fmt.Errorf("move %d is %s", n, m.GetState())
			}
			return nil
		})
		count(fmt.Sprintf("move %d in transit", n))
		src.start()

		// Step 2, with the owner of the table joined killed while the
		// call is in flight (at a random moment), then repeated until it
		// is answered: it is delivered once.
		dst := owner(tabs[to])
		done := make(chan error, 1)
		go func() {
			_, err := other(dst).tables().MoveIn(ctx, &tablev1.MoveInRequest{TableId: tabs[to], MoveId: move})
			done <- err
		}()
		time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond) // a random point of the call in flight: the kill's moment, not a wait for an effect
		if dst != nil {
			dst.kill()
		}
		first := <-done
		var delivered *tablev1.Move
		call(fmt.Sprintf("move %d in", n), func(tc tablev1.TournamentTableServiceClient) error {
			resp, err := tc.MoveIn(ctx, &tablev1.MoveInRequest{TableId: tabs[to], MoveId: move})
			delivered = resp.GetMove()
			return err
		})
		if delivered.GetState() != tablev1.MoveState_MOVE_STATE_DELIVERED || delivered.GetChips() != m.GetChips() {
			t.Fatalf("move %d: %v after %v", n, delivered, first)
		}
		t.Logf("move %d: %s joined %s with %d chips (first call: %v)", n, who, tabs[to], delivered.GetChips(), first)
		if dst != nil {
			dst.start()
		}
		seated[who] = to
		count(fmt.Sprintf("move %d delivered", n))
	}

	// Every move once, every entrant at one table.
	resp, err := replicas[0].tables().ListMoves(ctx, &tablev1.ListMovesRequest{TournamentId: ev})
	if err != nil || len(resp.GetMoves()) != 4 {
		t.Fatalf("moves %v %v", resp, err)
	}
	for _, m := range resp.GetMoves() {
		if m.GetState() != tablev1.MoveState_MOVE_STATE_DELIVERED {
			t.Fatalf("move %v", m)
		}
	}
	at := map[string][]string{}
	for _, id := range tabs {
		call("status", func(tc tablev1.TournamentTableServiceClient) error {
			resp, err := tc.GetTournamentTable(ctx, &tablev1.GetTournamentTableRequest{TableId: id})
			for _, seat := range resp.GetStatus().GetSeats() {
				if seat.GetPlayerId() != "" {
					at[seat.GetPlayerId()] = append(at[seat.GetPlayerId()], id)
				}
			}
			return err
		})
	}
	for p, want := range seated {
		if !slices.Equal(at[p], []string{tabs[want]}) {
			t.Fatalf("%s sits at %v, want %s", p, at[p], tabs[want])
		}
	}
}
