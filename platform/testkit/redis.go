package testkit

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis returns a client for REDIS_URL and a key prefix unique to the test
// (RedisPrefix). Use the prefix for every key the test or the code under
// test writes.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	prefix := RedisPrefix(t)
	return newClient(t, RedisURL(t)), prefix
}

// RedisPrefix returns a key prefix unique to the test ("t_<name>_<hex>:")
// for code that writes to REDIS_URL, a suite's processes included: every
// key under it is deleted when the test ends (SCAN + DEL; the shared
// server is never flushed). The deletion is registered now, so it runs
// after the cleanups registered later — the processes started with the
// prefix are stopped first and write nothing after it.
func RedisPrefix(t testing.TB) string {
	t.Helper()
	client := newClient(t, RedisURL(t))
	prefix := UniqueName(t) + ":"
	t.Cleanup(func() {
		ctx, cancel := cleanupContext()
		defer cancel()
		iter := client.Scan(ctx, 0, prefix+"*", 500).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("scan %s*: %v", prefix, err)
		}
		for len(keys) > 0 {
			n := min(len(keys), 500)
			if err := client.Del(ctx, keys[:n]...).Err(); err != nil {
				t.Errorf("delete %s*: %v", prefix, err)
				break
			}
			keys = keys[n:]
		}
	})
	return prefix
}

func newClient(t testing.TB, rawURL string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		t.Fatalf("parse Redis URL %q: %v", rawURL, err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	return client
}

// RedisServerBinary is where StartRedisServer looks first; PATH is tried
// next.
const RedisServerBinary = "/usr/bin/redis-server"

// RedisServer is a private, non-persistent redis-server on a loopback port,
// for tests that flush or restart Redis. It is stopped when the test ends.
type RedisServer struct {
	t    testing.TB
	bin  string
	port int
	// mu guards cmd.
	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartRedisServer starts a private redis-server on a free loopback port
// and waits until it answers PING.
func StartRedisServer(t testing.TB) *RedisServer {
	t.Helper()
	bin := RedisServerBinary
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath("redis-server"); err != nil {
			t.Fatalf("no redis-server binary (%s or on PATH); install redis-server or run `make test`", RedisServerBinary)
		}
	}
	_, rawPort, err := net.SplitHostPort(FreeAddr(t))
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	port, err := strconv.Atoi(rawPort)
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	s := &RedisServer{t: t, bin: bin, port: port}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// Addr returns host:port.
func (s *RedisServer) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL returns the server's redis:// URL.
func (s *RedisServer) URL() string { return "redis://" + s.Addr() + "/0" }

// Client returns a new client for the server, closed when the test ends.
func (s *RedisServer) Client(t testing.TB) *redis.Client {
	t.Helper()
	return newClient(t, s.URL())
}

// Restart stops the server and starts a fresh one on the same port. The
// server keeps nothing on disk, so every key is gone afterwards, as after a
// crash of a Redis without persistence.
func (s *RedisServer) Restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

func (s *RedisServer) start() {
	s.t.Helper()
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ping(s.Addr())
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s did not answer: %v", s.Addr(), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping speaks just enough RESP to see that the server is up, without a
// client library's retries and pools in the way.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 7)
	n, err := conn.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", buf[:n])
	}
	return nil
}

func (s *RedisServer) stop() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Kill()
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			s.t.Errorf("wait for redis-server: %v", err)
		}
	}
}
