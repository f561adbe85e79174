package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/auth"
)

// TestExhaustion attacks the gateway of a running suite the ways issue 9
// found open — 1 000 idle connections, idle keep-alive connections, slow
// headers and slow bodies (slowloris), 256 MB bodies with and without a
// token — while a client keeps using the API. Every attacking connection
// is closed by the server within its timeouts, every large body is refused
// unread (401 without a token, 413 with one), the process's resident
// memory stays bounded (it grew by 700 MB for three 64 MB bodies), and the
// other client is served throughout.
func TestExhaustion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole suite")
	}
	t.Parallel()
	s, key := newHostileSuite(t,
		"CARDROOM_HTTP_READ_HEADER_TIMEOUT=1s",
		"CARDROOM_HTTP_READ_TIMEOUT=2s",
		"CARDROOM_HTTP_IDLE_TIMEOUT=2s",
		"CARDROOM_HTTP_WRITE_TIMEOUT=10s",
	)
	s.start()
	issuer, err := auth.NewIssuer(key, nil)
	if err != nil {
		t.Fatal(err)
	}
	token, err := issuer.Mint("floor-anna", []auth.Role{auth.Floor}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(s.base, "http://")
	pid := s.cmd.Process.Pid
	base := residentBytes(t, pid)

	// The process's peak resident memory from here on.
	var peak atomic.Int64
	peak.Store(base)
	stopWatch := make(chan struct{})
	var watching sync.WaitGroup
	watching.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopWatch:
				return
			case <-tick.C:
				if rss := residentBytes(t, pid); rss > peak.Load() {
					peak.Store(rss)
				}
			}
		}
	})

	// The honest client: a request every few milliseconds, each answered.
	var served, failed atomic.Int64
	stopClient := make(chan struct{})
	var client sync.WaitGroup
	client.Go(func() {
		c := &http.Client{Timeout: 10 * time.Second}
		for {
			select {
			case <-stopClient:
				return
			default:
			}
			req, _ := http.NewRequest("GET", s.base+"/v1/tables", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := c.Do(req)
			if err != nil {
				failed.Add(1)
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				served.Add(1)
			} else {
				failed.Add(1)
			}
		}
	})

	var attacks sync.WaitGroup
	report := map[string]string{}
	var mu sync.Mutex // guards report
	attack := func(name string, run func() string) {
		attacks.Go(func() {
			start := time.Now()
			out := run()
			mu.Lock()
			report[name] = fmt.Sprintf("%s (%s)", out, time.Since(start).Round(100*time.Millisecond))
			mu.Unlock()
		})
	}

	attack("1000 idle connections", func() string {
		conns := dialMany(t, addr, 1000)
		return closedWithin(t, conns, 15*time.Second)
	})
	attack("200 idle keep-alive connections", func() string {
		// Each asks one thing as soon as it is open (before the header
		// timeout), then stays open with nothing to say.
		conns := make([]net.Conn, 200)
		var asked sync.WaitGroup
		for i := range conns {
			asked.Go(func() {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Errorf("dial %s: %v", addr, err)
					return
				}
				conns[i] = c
				if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
					t.Errorf("keep-alive request: %v", err)
					return
				}
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Errorf("keep-alive response: %v", err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		asked.Wait()
		t.Cleanup(func() {
			for _, c := range conns {
				if c != nil {
					_ = c.Close()
				}
			}
		})
		return closedWithin(t, slices.DeleteFunc(conns, func(c net.Conn) bool { return c == nil }), 15*time.Second)
	})
	attack("200 slow headers", func() string {
		conns := dialMany(t, addr, 200)
		drip(conns, "GET /v1/tables HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+token+"\r\n")
		return closedWithin(t, conns, 15*time.Second)
	})
	attack("200 slow bodies", func() string {
		conns := dialMany(t, addr, 200)
		head := "POST /v1/tables HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
		for _, c := range conns {
			if _, err := io.WriteString(c, head); err != nil {
				t.Errorf("slow body headers: %v", err)
			}
		}
		drip(conns, `{"name":"`+strings.Repeat("x", 50))
		return closedWithin(t, conns, 15*time.Second)
	})
	for _, big := range []struct {
		name, authorization string
		chunked             bool
		want                int
	}{
		{"256 MB body without a token", "", false, http.StatusUnauthorized},
		{"256 MB body with a bad token", "Bearer junk", true, http.StatusUnauthorized},
		{"256 MB body with a token", "Bearer " + token, false, http.StatusRequestEntityTooLarge},
		{"256 MB chunked body with a token", "Bearer " + token, true, http.StatusRequestEntityTooLarge},
	} {
		attack(big.name, func() string {
			code, sent := hugeBody(t, addr, big.authorization, big.chunked, 256<<20)
			if code != big.want {
				t.Errorf("%s: status %d, want %d", big.name, code, big.want)
			}
			if sent > 64<<20 {
				t.Errorf("%s: the server read %d MB before answering", big.name, sent>>20)
			}
			return fmt.Sprintf("%d after %d KB sent", code, sent>>10)
		})
	}
	attacks.Wait()
	close(stopClient)
	client.Wait()
	close(stopWatch)
	watching.Wait()

	for name, out := range report {
		t.Logf("%s: %s", name, out)
	}
	grew := peak.Load() - base
	t.Logf("resident memory %d MB before, peak %d MB (+%d MB); the client was served %d times, failed %d",
		base>>20, peak.Load()>>20, grew>>20, served.Load(), failed.Load())
	if grew > 200<<20 {
		t.Errorf("resident memory grew by %d MB under attack; want it bounded (< 200 MB)", grew>>20)
	}
	if served.Load() == 0 || failed.Load() > 0 {
		t.Errorf("the honest client was served %d times and failed %d times during the attacks", served.Load(), failed.Load())
	}
	// Still serving afterwards.
	code, _ := s.request(t, "GET", "/v1/tables", token, nil)
	if code != http.StatusOK {
		t.Fatalf("after the attacks: GET /v1/tables = %d", code)
	}
}

// residentBytes reads the process's resident set size.
func residentBytes(t *testing.T, pid int) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("read the suite's memory: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/<pid>/status")
	return 0
}

// dialMany opens n connections to addr; they are closed when the test ends.
func dialMany(t *testing.T, addr string, n int) []net.Conn {
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Errorf("dial %s: %v", addr, err)
			break
		}
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return conns
}

// drip writes text to every connection a byte at a time, a byte every
// 100 ms, until the server closes it: a slowloris client. It returns once
// every connection has been cut or text is used up.
func drip(conns []net.Conn, text string) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for i := range len(text) {
				<-tick.C
				if _, err := c.Write([]byte{text[i]}); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
}

// closedWithin waits until the server has closed every connection (a read
// returns, with an answer or none), and says how many it closed in time.
func closedWithin(t *testing.T, conns []net.Conn, limit time.Duration) string {
	start := time.Now()
	var closed atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			_ = c.SetReadDeadline(start.Add(limit))
			if _, err := io.Copy(io.Discard, c); err == nil {
				closed.Add(1) // EOF: the server closed it
			} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				closed.Add(1) // reset by the server
			}
		})
	}
	wg.Wait()
	if int(closed.Load()) != len(conns) {
		t.Errorf("the server closed %d of %d connections within %s", closed.Load(), len(conns), limit)
	}
	return fmt.Sprintf("%d of %d closed by the server", closed.Load(), len(conns))
}

// hugeBody sends a POST with a body of size bytes (declared, or chunked)
// until the server answers or stops reading, and returns the status and
// how much of the body it managed to send.
func hugeBody(t *testing.T, addr, authorization string, chunked bool, size int64) (int, int64) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := "POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	if authorization != "" {
		head += "Authorization: " + authorization + "\r\n"
	}
	if chunked {
		head += "Transfer-Encoding: chunked\r\n\r\n"
	} else {
		head += "Content-Length: " + strconv.FormatInt(size, 10) + "\r\n\r\n"
	}
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	answered := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	chunk := []byte(strings.Repeat("x", 64<<10))
	framed := chunk
	if chunked {
		framed = append([]byte(strconv.FormatInt(int64(len(chunk)), 16)+"\r\n"), append(chunk, "\r\n"...)...)
	}
	var sent int64
	_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	for sent < size {
		select {
		case code := <-answered:
			return code, sent
		default:
		}
		if _, err := c.Write(framed); err != nil {
			break // the server closed the connection
		}
		sent += int64(len(chunk))
	}
	select {
	case code := <-answered:
		return code, sent
	case <-time.After(30 * time.Second):
		t.Errorf("no answer to a %d MB body", size>>20)
		return 0, sent
	}
}
