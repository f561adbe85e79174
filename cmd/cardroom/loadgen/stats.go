package loadgen

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
)

// expectedReasons are refusals a bot meets by racing the table or the
// waitlist the way a person can: the action clock acted first, or the
// seat offer ran out before the accept arrived. Every other error is
// unexpected: a load run against a healthy suite has none.
var expectedReasons = map[string]bool{
	"STALE_SEQUENCE": true, "OUT_OF_TURN": true, "NO_HAND_IN_PROGRESS": true,
	"OFFER_EXPIRED": true, "OFFER_CLOSED": true,
}

// Op is one kind of operation's totals.
type Op struct {
	Name   string
	Count  int
	Errors int
	// P50 … P999 are latency percentiles of every call, refused or not.
	P50, P95, P99, P999 time.Duration
}

// Report is what a run measured.
type Report struct {
	Elapsed time.Duration
	Ops     []Op
	// Errors counts errors by "op reason" ("act STALE_SEQUENCE"); a
	// reason is the google.rpc.ErrorInfo reason, else the gRPC code.
	Errors map[string]int
	// Unexpected is how many errors have a reason outside expectedReasons.
	Unexpected int
	// Audit is the ledger audit at the end.
	Audit AuditResult
}

// Total is the number of operations made.
func (r Report) Total() int {
	n := 0
	for _, o := range r.Ops {
		n += o.Count
	}
	return n
}

// AuditResult is the wallet's audit after the run.
type AuditResult struct {
	Clean                        bool
	Problems                     []string
	Accounts, Transfers, Entries int64
	TablesReconciled             bool
	StuckCashOuts, AuditAttempts int
}

// stats records calls as the bots make them.
type stats struct {
	mu      sync.Mutex
	lat     map[string][]time.Duration
	errs    map[string]int
	fails   map[string]int
	unexp   int
	onCall  func()
	started time.Time
}

func newStats(onCall func()) *stats {
	return &stats{lat: map[string][]time.Duration{}, errs: map[string]int{}, fails: map[string]int{}, onCall: onCall, started: time.Now()}
}

// record adds one call of op that took d and ended with err.
func (s *stats) record(op string, d time.Duration, err error) {
	s.mu.Lock()
	s.lat[op] = append(s.lat[op], d)
	if err != nil {
		reason := ReasonOf(err)
		s.errs[op+" "+reason]++
		s.fails[op]++
		if !expectedReasons[reason] {
			s.unexp++
		}
	}
	s.mu.Unlock()
	if s.onCall != nil {
		s.onCall()
	}
}

// ReasonOf is an error's reason (google.rpc.ErrorInfo's over gRPC, the
// error body's over REST), else its gRPC code.
func ReasonOf(err error) string {
	if r, ok := errors.AsType[*refusal](err); ok {
		return r.reason
	}
	st, ok := status.FromError(err)
	if !ok {
		return "UNKNOWN"
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() != "" {
			return info.GetReason()
		}
	}
	return st.Code().String()
}

// report sums what was recorded.
func (s *stats) report() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Report{Elapsed: time.Since(s.started), Errors: maps.Clone(s.errs), Unexpected: s.unexp}
	for _, name := range slices.Sorted(maps.Keys(s.lat)) {
		l := slices.Clone(s.lat[name])
		slices.Sort(l)
		pct := func(p float64) time.Duration { return l[min(len(l)-1, int(p*float64(len(l))))] }
		r.Ops = append(r.Ops, Op{Name: name, Count: len(l), Errors: s.fails[name], P50: pct(0.50), P95: pct(0.95), P99: pct(0.99), P999: pct(0.999)})
	}
	return r
}

// Print writes the report as a table.
func (r Report) Print(w io.Writer) {
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(w, "%-10s %8s %9s %9s %9s %9s %9s %7s\n", "op", "count", "ops/s", "p50", "p95", "p99", "p99.9", "errors")
	for _, o := range r.Ops {
		fmt.Fprintf(w, "%-10s %8d %9.1f %9s %9s %9s %9s %7d\n", o.Name, o.Count, float64(o.Count)/secs,
			ms(o.P50), ms(o.P95), ms(o.P99), ms(o.P999), o.Errors)
	}
	fmt.Fprintf(w, "%-10s %8d %9.1f   in %s\n", "total", r.Total(), float64(r.Total())/secs, r.Elapsed.Round(time.Millisecond))
	if len(r.Errors) > 0 {
		fmt.Fprintln(w, "errors by reason:")
		for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
			kind := "unexpected"
			if _, reason, _ := strings.Cut(k, " "); expectedReasons[reason] {
				kind = "expected: a race a person meets too"
			}
			fmt.Fprintf(w, "  %-40s %6d  (%s)\n", k, r.Errors[k], kind)
		}
	}
	fmt.Fprintf(w, "unexpected errors: %d\n", r.Unexpected)
	a := r.Audit
	verdict := "clean"
	if !a.Clean {
		verdict = "NOT CLEAN"
	}
	fmt.Fprintf(w, "ledger audit: %s (accounts %d, transfers %d, entries %d, tables reconciled %v, stuck cash-outs %d, %d attempts)\n",
		verdict, a.Accounts, a.Transfers, a.Entries, a.TablesReconciled, a.StuckCashOuts, a.AuditAttempts)
	for _, p := range a.Problems {
		fmt.Fprintln(w, "  PROBLEM:", p)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
