package main

import (
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc"

	"github.com/cardroom/cardroom/platform/auth"
	"github.com/cardroom/cardroom/platform/clock"
	"github.com/cardroom/cardroom/platform/events"
	"github.com/cardroom/cardroom/platform/lock"
	"github.com/cardroom/cardroom/platform/testkit"
	"github.com/cardroom/cardroom/services/seating"
)

// TestSeatingPartReadsItsTimers: the seating part reads its timers from
// the environment and does not start on one out of range, naming each bad
// variable (a negative offer timeout, a sweep interval of an hour).
// Not parallel: it sets the process environment the part reads.
func TestSeatingPartReadsItsTimers(t *testing.T) {
	var p part
	for _, q := range allParts {
		if q.name == seating.Name {
			p = q
		}
	}
	db := testkit.SQLite(t, seating.DBOptions())
	// The part dials the table service (it sits away players out there):
	// a connection made, never used here.
	issuer, err := auth.NewIssuer([]byte("0123456789abcdef0123456789abcdef"), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &environment{clock: clock.Real{}, log: slog.Default(), locker: lock.NewLocal(), bus: events.NewMemory(events.MemoryOptions{}),
		issuer: issuer, grpcAddr: "127.0.0.1:1", all: true, conns: map[string]*grpc.ClientConn{}}

	t.Setenv("CARDROOM_SEATING_OFFER_TIMEOUT", "-3m")
	t.Setenv("CARDROOM_SEATING_SWEEP_INTERVAL", "1h")
	_, err = p.build(e, db)
	if err == nil || !strings.Contains(err.Error(), "CARDROOM_SEATING_OFFER_TIMEOUT") || !strings.Contains(err.Error(), "CARDROOM_SEATING_SWEEP_INTERVAL") {
		t.Fatalf("bad timers: %v, want both variables named", err)
	}
	t.Setenv("CARDROOM_SEATING_SWEEP_INTERVAL", "soon")
	if _, err := p.build(e, db); err == nil || !strings.Contains(err.Error(), "CARDROOM_SEATING_SWEEP_INTERVAL") {
		t.Fatalf("unreadable sweep interval: %v, want the variable named", err)
	}

	t.Setenv("CARDROOM_SEATING_OFFER_TIMEOUT", "90s")
	t.Setenv("CARDROOM_SEATING_SWEEP_INTERVAL", "500ms")
	b, err := p.build(e, db)
	if err != nil || b == nil {
		t.Fatalf("good timers: %v", err)
	}
}
