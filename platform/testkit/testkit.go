// Package testkit gives tests in every module real, isolated backing
// services: a fresh PostgreSQL schema per test, a unique Redis key prefix per
// test, or a private redis-server for tests that flush or restart it. The
// URLs come from DATABASE_URL and REDIS_URL (`make test` provides them); a
// test fails with a pointer to `make test` when neither they nor the local
// defaults are reachable.
package testkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Defaults tried when the environment names no server.
const (
	DefaultRedisURL    = "redis://127.0.0.1:6379/0"
	DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
)

// backend is a server the tests need, found once per test binary.
type backend struct {
	env, fallback, name string
	once                sync.Once
	url                 string
	err                 error
}

var (
	redisBackend    = &backend{env: "REDIS_URL", fallback: DefaultRedisURL, name: "Redis"}
	postgresBackend = &backend{env: "DATABASE_URL", fallback: DefaultDatabaseURL, name: "PostgreSQL"}
)

// resolveURL returns the backend's URL or fails the test saying how to get one.
func (b *backend) resolveURL(t testing.TB) string {
	t.Helper()
	b.once.Do(func() { b.url, b.err = resolve(b.env, b.fallback) })
	if b.err != nil {
		t.Fatalf("no %s: %s is unset and %s is not reachable (%v); run the tests with `make test`, which starts one", b.name, b.env, b.fallback, b.err)
	}
	return b.url
}

// RedisURL returns REDIS_URL, or the local default when that is unset and
// reachable; otherwise it fails the test.
func RedisURL(t testing.TB) string {
	t.Helper()
	return redisBackend.resolveURL(t)
}

// DatabaseURL returns DATABASE_URL, or the local default when that is unset
// and reachable; otherwise it fails the test.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	return postgresBackend.resolveURL(t)
}

// resolve trusts a URL from the environment as given (a wrong one fails
// loudly in the test that uses it) and probes the default with a TCP dial.
func resolve(env, fallback string) (string, error) {
	if v := os.Getenv(env); v != "" {
		return v, nil
	}
	u, err := url.Parse(fallback)
	if err != nil {
		return "", err
	}
	conn, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		return "", err
	}
	conn.Close()
	return fallback, nil
}

// UniqueName returns a lower-case identifier derived from the test name
// plus random hex, safe as a PostgreSQL schema name or a key prefix part.
func UniqueName(t testing.TB) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name()) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	var buf [6]byte
	if _, err := rand.Read(buf[:]); err != nil {
		t.Fatalf("random name: %v", err)
	}
	return "t_" + strings.Trim(name, "_") + "_" + hex.EncodeToString(buf[:])
}

// cleanupContext is for t.Cleanup work, which runs after t.Context() is done.
func cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}
