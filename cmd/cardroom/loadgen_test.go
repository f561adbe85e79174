package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
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
		cmd := exec.Command(s.bin, "loadgen", "--via", via, "--run", "t"+via, "--duration", "4s", "--players", "8",
			"--tables", "2", "--think", "20ms", "--poll", "50ms", "--hands", "3", "--drain", "30s")
		cmd.Env = s.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("loadgen over %s: %v\n%s", via, err, out)
		}
		m := total.FindSubmatch(out)
		if m == nil {
			t.Fatalf("loadgen over %s printed no total:\n%s", via, out)
		}
		if n, _ := strconv.Atoi(string(m[1])); n == 0 {
			t.Fatalf("loadgen over %s made no calls:\n%s", via, out)
		}
		for _, want := range []string{"\nunexpected errors: 0\n", "\nledger audit: clean ", "\nact ", "\nbuy-in ", "\ndeposit ", "\nwithdraw "} {
			if !strings.Contains(string(out), want) {
				t.Fatalf("loadgen over %s: no %q in\n%s", via, strings.TrimSpace(want), out)
			}
		}
		t.Logf("loadgen over %s:\n%s", via, out)
	}
	s.stop()
}
