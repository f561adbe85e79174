package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cardroom/cardroom/gateway"
	streamtestpb "github.com/cardroom/cardroom/gateway/internal/streamtest/gen"
	"github.com/cardroom/cardroom/platform/auth"
)

type counter struct {
	streamtestpb.UnimplementedCountServiceServer
}

func (counter) Count(req *streamtestpb.CountRequest, stream grpc.ServerStreamingServer[streamtestpb.CountResponse]) error {
	for n := int32(1); n <= req.GetTo(); n++ {
		if err := stream.Send(&streamtestpb.CountResponse{N: n}); err != nil {
			return err
		}
	}
	if c := codes.Code(req.GetFailCode()); c != codes.OK {
		return status.Error(c, "counting stopped")
	}
	return nil
}

// TestServerStreamingPassesThrough proves a server-streaming RPC reaches the
// client as newline-delimited JSON through the whole handler chain (otelhttp
// and CORS must keep http.Flusher), and how a stream's error looks.
func TestServerStreamingPassesThrough(t *testing.T) {
	t.Parallel()
	conn := serveLoopback(t, func(gs *grpc.Server) { streamtestpb.RegisterCountServiceServer(gs, counter{}) })
	srv := httptest.NewServer(gatewayOn(t, conn, gateway.Options{
		CORSOrigins: []string{"https://floor.example.com"},
		Register: []func(context.Context, *runtime.ServeMux) error{
			func(ctx context.Context, mux *runtime.ServeMux) error {
				return streamtestpb.RegisterCountServiceHandler(ctx, mux, conn)
			},
		},
	}))
	t.Cleanup(srv.Close)

	type line struct {
		Result *struct {
			N int `json:"n"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	count := func(t *testing.T, body string) (int, []line) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/cardroom.streamtest.v1.CountService/Count", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "https://floor.example.com")
		req.Header.Set("Authorization", bearer(t, "pat", auth.Player))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var lines []line
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var l line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			lines = append(lines, l)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, lines
	}

	status, lines := count(t, `{"to":3}`)
	if status != 200 || len(lines) != 3 {
		t.Fatalf("status %d, %d lines %+v; want 200 and 3 lines", status, len(lines), lines)
	}
	for i, l := range lines {
		if l.Result == nil || l.Result.N != i+1 {
			t.Errorf("line %d = %+v, want result n=%d", i, l, i+1)
		}
	}

	// An error after messages ends the stream with an error line; the
	// status is already 200 by then.
	status, lines = count(t, `{"to":2,"fail_code":9}`)
	if status != 200 || len(lines) != 3 || lines[2].Error == nil || lines[2].Error.Code != int(codes.FailedPrecondition) {
		t.Errorf("status %d lines %+v, want 200, two results and a FailedPrecondition error line", status, lines)
	}
	// A status without ErrorInfo that could be transport text (Unavailable)
	// is masked behind a correlation ID, as for unary calls.
	status, lines = count(t, `{"to":1,"fail_code":14}`)
	if status != 200 || len(lines) != 2 || lines[1].Error == nil || lines[1].Error.Code != int(codes.Unavailable) ||
		strings.Contains(lines[1].Error.Message, "counting stopped") || !strings.Contains(lines[1].Error.Message, "correlation id") {
		t.Errorf("status %d lines %+v, want 200, one result and a masked Unavailable error line", status, lines)
	}
	// An error before any message sets the HTTP status too.
	status, lines = count(t, `{"to":0,"fail_code":7}`)
	if status != 403 || len(lines) != 1 || lines[0].Error == nil || lines[0].Error.Message != "counting stopped" {
		t.Errorf("status %d lines %+v, want 403 and one error line", status, lines)
	}
}
