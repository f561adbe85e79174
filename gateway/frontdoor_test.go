package gateway_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"buf.build/go/protovalidate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cardroom/cardroom/gateway"
	"github.com/cardroom/cardroom/platform/auth"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
)

// TestFrontDoor: what the gateway decides before a service sees anything.
// The token is checked before the body is read (a malformed or huge body
// without a token is 401, not 400 or 413), bodies are read only up to the
// limit, the service identity is refused, NUL and invalid UTF-8 are 400
// wherever they are (path or body), and the role a request names is
// forwarded.
func TestFrontDoor(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{MaxBody: 4096})
	floor := bearer(t, "floor-1", auth.Floor)
	huge := `{"name":"` + strings.Repeat("x", 5000) + `"}`
	tests := []struct {
		name, method, path, body, authorization string
		header                                  map[string]string
		status                                  int
		reason, field                           string
	}{
		{name: "malformed body without a token", method: "POST", path: "/v1/tables", body: `{"name":`, status: 401, reason: "UNAUTHENTICATED"},
		{name: "malformed body with a bad token", method: "POST", path: "/v1/tables", body: `{"name":`, authorization: "Bearer junk", status: 401, reason: "UNAUTHENTICATED"},
		{name: "malformed body with a token", method: "POST", path: "/v1/tables", body: `{"name":`, authorization: floor, status: 400, reason: "INVALID_ARGUMENT"},
		{name: "oversized body without a token", method: "POST", path: "/v1/tables", body: huge, status: 401, reason: "UNAUTHENTICATED"},
		{name: "oversized body with a token", method: "POST", path: "/v1/tables", body: huge, authorization: floor, status: 413, reason: "REQUEST_TOO_LARGE"},
		{name: "service identity refused", method: "GET", path: "/v1/tables/t1", authorization: bearer(t, "cardroom-table", auth.Service), status: 403, reason: "PERMISSION_DENIED"},
		{name: "NUL in a path parameter", method: "GET", path: "/v1/tables/a%00b", authorization: floor, status: 400, reason: "INVALID_ARGUMENT", field: "table_id"},
		{name: "invalid UTF-8 in a path parameter", method: "GET", path: "/v1/tables/a%FFb", authorization: floor, status: 400, reason: "INVALID_ARGUMENT", field: "table_id"},
		{name: "NUL in a body string", method: "POST", path: "/v1/tables", body: strings.Replace(validTable, `"Table 1"`, `"Table\u00001"`, 1), authorization: floor, status: 400, reason: "INVALID_ARGUMENT", field: "name"},
		{name: "invalid UTF-8 in a body string", method: "POST", path: "/v1/tables", body: strings.Replace(validTable, `"Table 1"`, "\"Table\xff1\"", 1), authorization: floor, status: 400, reason: "INVALID_ARGUMENT"},
		{name: "a valid request passes", method: "POST", path: "/v1/tables", body: validTable, authorization: floor, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, failed := f.call(t, tt.method, tt.path, tt.body, tt.authorization, tt.status)
			if !failed {
				return
			}
			if got.Reason != tt.reason || got.HTTPStatus != tt.status || got.Metadata["field"] != tt.field {
				t.Errorf("body %+v, want reason %s field %q", got, tt.reason, tt.field)
			}
			if strings.Contains(got.Message, "grpc") || strings.Contains(got.Message, "4194304") {
				t.Errorf("message leaks internals: %q", got.Message)
			}
		})
	}
}

// TestFrontDoorRefusesAChunkedBodyOverTheLimit: a body without a declared
// length is read only up to the limit.
func TestFrontDoorRefusesAChunkedBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{MaxBody: 4096})
	pr, pw := io.Pipe()
	go func() {
		// Far more than the limit, and never the end of a JSON value.
		_, _ = pw.Write([]byte(`{"name":"`))
		chunk := []byte(strings.Repeat("x", 1024))
		for range 1024 {
			if _, err := pw.Write(chunk); err != nil {
				return // the gateway stopped reading
			}
		}
		_ = pw.Close()
	}()
	t.Cleanup(func() { _ = pr.Close() })
	req, err := http.NewRequestWithContext(t.Context(), "POST", f.srv.URL+"/v1/tables", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", bearer(t, "floor-1", auth.Floor))
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got errorBody
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 413 || got.Reason != "REQUEST_TOO_LARGE" {
		t.Fatalf("status %d body %+v, want 413 REQUEST_TOO_LARGE", resp.StatusCode, got)
	}
}

// TestRoleHeaderIsForwarded: the Cardroom-Role header reaches the service
// as the cardroom-role metadata, and a client cannot smuggle another value
// past it as Grpc-Metadata-Cardroom-Role.
func TestRoleHeaderIsForwarded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, gateway.Options{})
	tests := []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"named", map[string]string{"Cardroom-Role": "dealer"}, "dealer"},
		{"none", nil, ""},
		{"smuggled", map[string]string{"Grpc-Metadata-Cardroom-Role": "admin"}, ""},
		{"named and smuggled", map[string]string{"Cardroom-Role": "player", "Grpc-Metadata-Cardroom-Role": "admin"}, "player"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := f.do(t, "GET", "/v1/tables/role", "", tt.header)
			var got struct {
				Table struct{ Name string } `json:"table"`
			}
			if err := json.Unmarshal([]byte(resp.body), &got); err != nil || resp.status != 200 {
				t.Fatalf("status %d body %s: %v", resp.status, resp.body, err)
			}
			if got.Table.Name != tt.want {
				t.Errorf("the service saw role %q, want %q", got.Table.Name, tt.want)
			}
		})
	}
}

// TestFeedsOutliveTheServerTimeouts: an HTTP server with short read and
// write timeouts (as cmd/cardroom configures) cuts a slow body, yet a feed
// opened before it keeps delivering after both timeouts have passed.
func TestFeedsOutliveTheServerTimeouts(t *testing.T) {
	t.Parallel()
	validator, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	conn := serveLoopback(t, func(gs *grpc.Server) {
		tablev1.RegisterTableServiceServer(gs, &fakeTables{validator: validator, release: release})
	})
	const timeout = 300 * time.Millisecond
	srv := httptest.NewUnstartedServer(gatewayOn(t, conn, gateway.Options{}))
	srv.Config.ReadTimeout, srv.Config.WriteTimeout, srv.Config.ReadHeaderTimeout = timeout, timeout, timeout
	srv.Start()
	t.Cleanup(srv.Close)
	player := bearer(t, "pat", auth.Player)

	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/v1/tables/t1:watch", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", player)
	feed, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Body.Close()
	lines := bufio.NewScanner(feed.Body)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"sequence":"1"`) {
		t.Fatalf("first feed line %q (%v)", lines.Text(), lines.Err())
	}

	// A client that sends its headers and then only part of its body is
	// cut off once the read timeout has passed.
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST /v1/tables HTTP/1.1\r\nHost: x\r\nAuthorization: "+player+"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"na"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on a broken test, not the wait
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("the slow body was not cut: %v", err)
	}

	// Both timeouts have passed for the feed too; it still delivers.
	close(release)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"sequence":"2"`) {
		t.Fatalf("the feed was cut by the server's timeouts: line %q, error %v", lines.Text(), lines.Err())
	}
}

// TestMessageOverTheServiceLimitIs413: a body the gateway accepts but the
// service's gRPC limit refuses is 413 REQUEST_TOO_LARGE, and the answer does
// not carry gRPC's text with the limit's numbers (it was a 429 that did).
func TestMessageOverTheServiceLimitIs413(t *testing.T) {
	t.Parallel()
	validator, err := protovalidate.New()
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.MaxRecvMsgSize(1024))
	tablev1.RegisterTableServiceServer(gs, &fakeTables{validator: validator})
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	srv := httptest.NewServer(gatewayOn(t, conn, gateway.Options{}))
	t.Cleanup(srv.Close)
	f := &fixture{srv: srv}
	body := strings.Replace(validTable, `"Table 1"`, `"`+strings.Repeat("x", 4096)+`"`, 1)
	got, _ := f.call(t, "POST", "/v1/tables", body, bearer(t, "floor-1", auth.Floor), http.StatusRequestEntityTooLarge)
	if got.Reason != "REQUEST_TOO_LARGE" || got.Code != "RESOURCE_EXHAUSTED" || strings.Contains(got.Message, "1024") || strings.Contains(got.Message, "grpc") {
		t.Errorf("body %+v, want REQUEST_TOO_LARGE without gRPC's text", got)
	}
}
