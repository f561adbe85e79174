package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoadgenAgainstEmbeddedSuite runs `cardroom loadgen` for a few seconds
// against the embedded suite (`cardroom all` on SQLite), over gRPC and over
// REST, the way an operator runs it against make run: the bots make calls,
// none of them fails unexpectedly, and the ledger audit at the end is
// clean (the command's exit status says so too).
func TestLoadgenAgainstEmbeddedSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s := newSuite(t)
	s.start()
	total := regexp.MustCompile(`(?m)^total\s+(\d+)\s`)
	for _, via := range []string{"grpc", "rest"} {
		// The bots reach a hand only after deposits, offers and buy-ins; on
		// a loaded machine those take seconds, so a run that ends before
		// any hand is dealt is run again for twice as long (a run's other
		// checks never get a second chance).
		for attempt, d := 1, 4*time.Second; ; attempt, d = attempt+1, 2*d {
			out := s.loadgen(t, via, fmt.Sprintf("t%s%d", via, attempt), d)
			m := total.FindSubmatch(out)
			if m == nil {
				t.Fatalf("loadgen over %s printed no total:\n%s", via, out)
			}
			if n, _ := strconv.Atoi(string(m[1])); n == 0 {
				t.Fatalf("loadgen over %s made no calls:\n%s", via, out)
			}
			for _, want := range []string{"\nunexpected errors: 0\n", "\nledger audit: clean ", "\nbuy-in ", "\ndeposit ", "\nwithdraw "} {
				if !strings.Contains(string(out), want) {
					t.Fatalf("loadgen over %s: no %q in\n%s", via, strings.TrimSpace(want), out)
				}
			}
			if strings.Contains(string(out), "\nact ") {
				t.Logf("loadgen over %s:\n%s", via, out)
				break
			}
			if d >= 32*time.Second {
				t.Fatalf("loadgen over %s: no hand was played in %s:\n%s", via, d, out)
			}
			t.Logf("loadgen over %s for %s dealt no hand; again for %s:\n%s", via, d, 2*d, out)
		}
	}
	s.stop()
}

// loadgen runs `cardroom loadgen` against s for d; a failed run fails t.
func (s *suite) loadgen(t *testing.T, via, run string, d time.Duration) []byte {
	t.Helper()
	cmd := exec.Command(s.bin, "loadgen", "--via", via, "--run", run, "--duration", d.String(), "--players", "8",
		"--tables", "2", "--think", "20ms", "--poll", "50ms", "--hands", "3", "--drain", "30s")
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("loadgen over %s: %v\n%s", via, err, out)
	}
	return out
}
