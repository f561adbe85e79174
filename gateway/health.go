package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// check is one part of the suite whose readiness /healthz reports.
type check struct {
	part  string
	ready func(context.Context) error
}

// Why a part is not ready, as /healthz reports it. The report is public, so
// it names only these few states; the error behind a failure is logged.
var (
	errNotServing    = errors.New("not_serving")
	errNotRegistered = errors.New("not_registered")
)

// grpcHealthCheck asks a part's grpc.health.v1 service about the part's own
// service name (for example "cardroom.wallet.v1.WalletService"). A server
// that has no status under that name (NotFound) does not run the part, so
// the part is not ready whatever the server-wide status says.
func grpcHealthCheck(name string, conn grpc.ClientConnInterface, service string) check {
	client := healthpb.NewHealthClient(conn)
	return check{part: name, ready: func(ctx context.Context) error {
		resp, err := client.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		switch {
		case status.Code(err) == codes.NotFound:
			return fmt.Errorf("health of %s: %w", service, errNotRegistered)
		case err != nil:
			return fmt.Errorf("health of %s: %w", service, err)
		case resp.GetStatus() != healthpb.HealthCheckResponse_SERVING:
			return fmt.Errorf("health of %s is %s: %w", service, resp.GetStatus(), errNotServing)
		}
		return nil
	}}
}

// healthHandler serves GET /healthz: 200 when every part is ready, 503
// naming the parts that are not otherwise.
type healthHandler struct {
	checks  []check
	timeout time.Duration
	log     *slog.Logger
}

// healthReport is the JSON body of /healthz.
type healthReport struct {
	// Status is "ok" or "unavailable".
	Status string `json:"status"`
	// Parts maps each part to "ok" or why it is not ready (see describe).
	Parts map[string]string `json:"parts"`
	// Failing lists the parts that are not ready, sorted.
	Failing []string `json:"failing,omitempty"`
}

func (h *healthHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	report := healthReport{Status: "ok", Parts: make(map[string]string, len(h.checks))}
	var mu sync.Mutex // mu guards report.
	var wg sync.WaitGroup
	for _, c := range h.checks {
		wg.Go(func() {
			err := c.ready(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				report.Parts[c.part] = "ok"
				return
			}
			report.Parts[c.part] = describe(err)
			report.Failing = append(report.Failing, c.part)
			h.log.WarnContext(ctx, "part not ready", "part", c.part, "error", err)
		})
	}
	wg.Wait()
	code := http.StatusOK
	if len(report.Failing) > 0 {
		sort.Strings(report.Failing)
		report.Status = "unavailable"
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if err := json.NewEncoder(w).Encode(report); err != nil {
		h.log.DebugContext(ctx, "write healthz", "error", err)
	}
}

// describe says why a part is not ready in one of a few fixed words:
// "not_serving", "not_registered", "unreachable", "timeout" or "failing".
// Error text stays in the log: it names internal addresses.
func describe(err error) string {
	switch {
	case errors.Is(err, errNotServing):
		return errNotServing.Error()
	case errors.Is(err, errNotRegistered):
		return errNotRegistered.Error()
	case errors.Is(err, context.DeadlineExceeded), status.Code(err) == codes.DeadlineExceeded:
		return "timeout"
	case status.Code(err) == codes.Unavailable:
		return "unreachable"
	}
	return "failing"
}
