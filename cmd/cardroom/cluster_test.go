package main

// The suite as deployed: every part in its own process on Redis and
// PostgreSQL, the table replicas reaching the wallet through a fault
// injecting proxy (toxiproxy, run in the test process), so that a test can
// make the wallet unreachable, kill any part with SIGKILL and start it
// again on the same data.

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"syscall"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/cardroom/cardroom/platform/testkit"
)

// cluster is one suite, one process per part.
type cluster struct {
	t       *testing.T
	gateway *suite // the REST gateway; a room drives the suite through it
	wallet  *suite
	tables  []*suite // the table replicas
	others  []*suite // seating and tournament
	// walletProxy sits between the table replicas and the wallet.
	walletProxy *toxiproxy.Proxy
	// tablesProxy, with clusterOptions.tablesProxy, sits between the
	// tournament and the table replica it calls.
	tablesProxy *toxiproxy.Proxy
	// toxics runs the fault-injecting proxies of the test process.
	toxics *toxiproxy.ApiServer
}

// clusterOptions shape a cluster.
type clusterOptions struct {
	// tables is the number of table replicas (at least 1).
	tables int
	// redisURL is the Redis of the suite; empty uses testkit.RedisURL.
	redisURL string
	// bin is the executable; nil is the plain binary.
	bin *builtBinary
	// env is added to every part's environment.
	env []string
	// tablesProxy puts a fault-injecting proxy between the tournament and
	// the table service (cluster.tablesProxy).
	tablesProxy bool
}

// newCluster starts every part, each in its own process, and waits until
// the gateway reports them all ready.
func newCluster(t *testing.T, o clusterOptions) *cluster {
	t.Helper()
	if o.tables < 1 {
		o.tables = 1
	}
	if o.bin == nil {
		o.bin = binary
	}
	if o.redisURL == "" {
		o.redisURL = testkit.RedisURL(t)
	}
	shared := append([]string{
		"REDIS_URL=" + o.redisURL,
		"CARDROOM_REDIS_PREFIX=" + testkit.RedisPrefix(t),
		"DATABASE_URL=" + postgresDatabase(t),
		// Every process of one suite signs and checks tokens with one key,
		// and every table replica seals hands with one key.
		"CARDROOM_JWT_KEY=" + randomHex(t, 32),
		"CARDROOM_TABLE_SEAL_KEY=" + randomHex(t, 32),
	}, o.env...)
	c := &cluster{t: t}
	part := func(name string, extra ...string) *suite {
		s := newSuiteOf(t, o.bin, append(shared, extra...)...)
		s.part, s.base = name, ""
		return s
	}
	addr := func(s *suite) string { return envOf(s.env, "CARDROOM_GRPC_ADDR") }

	c.wallet = part("wallet")
	seating := part("seating")
	tournament := part("tournament")
	c.others = []*suite{seating, tournament}

	c.toxics = toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	c.walletProxy = c.proxy("wallet", addr(c.wallet))

	// The wallet asks the table service which epochs it issued; any
	// replica answers from the shared store.
	var tableAddrs []string
	for range o.tables {
		s := part("table", "CARDROOM_WALLET_ADDR="+c.walletProxy.Listen, "CARDROOM_SEATING_ADDR="+addr(seating))
		s.env = append(s.env, "CARDROOM_TABLE_ADVERTISE_ADDR="+addr(s))
		c.tables = append(c.tables, s)
		tableAddrs = append(tableAddrs, addr(s))
	}
	c.wallet.env = append(c.wallet.env, "CARDROOM_TABLE_ADDR="+tableAddrs[0], "CARDROOM_TOURNAMENT_ADDR="+addr(tournament))
	tablesAddr := tableAddrs[0]
	if o.tablesProxy {
		c.tablesProxy = c.proxy("tables", tableAddrs[0])
		tablesAddr = c.tablesProxy.Listen
	}
	tournament.env = append(tournament.env, "CARDROOM_WALLET_ADDR="+addr(c.wallet), "CARDROOM_TABLE_ADDR="+tablesAddr)
	seating.env = append(seating.env, "CARDROOM_TABLE_ADDR="+tableAddrs[0])

	gw := newSuiteOf(t, o.bin, append(shared,
		"CARDROOM_WALLET_ADDR="+addr(c.wallet), "CARDROOM_SEATING_ADDR="+addr(seating),
		"CARDROOM_TOURNAMENT_ADDR="+addr(tournament), "CARDROOM_TABLE_ADDR="+tableAddrs[0])...)
	gw.part = "gateway"
	c.gateway = gw

	for _, s := range c.parts() {
		if s != gw {
			s.start()
		}
	}
	gw.start()
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(c.logs())
		}
	})
	return c
}

// parts lists every process of the cluster.
func (c *cluster) parts() []*suite {
	return append(append([]*suite{c.wallet}, append(c.tables, c.others...)...), c.gateway)
}

// proxy starts a fault-injecting proxy to upstream on a free loopback
// port (its Listen address), stopped when the test ends. The port is one
// freeAddr gives, not the kernel's: walletUp binds it again after
// walletDown, and an ephemeral port may be some connection's by then.
func (c *cluster) proxy(name, upstream string) *toxiproxy.Proxy {
	c.t.Helper()
	p := toxiproxy.NewProxy(c.toxics, name, freeAddr(c.t), upstream)
	if err := p.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(p.Stop)
	return p
}

// walletDown makes the wallet unreachable from the table replicas:
// connections are cut and new ones refused until walletUp.
func (c *cluster) walletDown() { c.walletProxy.Stop() }

// walletUp lets the table replicas reach the wallet again.
func (c *cluster) walletUp() {
	c.t.Helper()
	if err := c.walletProxy.Start(); err != nil {
		c.t.Fatal(err)
	}
}

// kill stops a part with SIGKILL, as a crash would.
func (c *cluster) kill(s *suite) {
	c.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatal(err)
	}
	if err := <-s.waitErr; err == nil {
		c.t.Fatalf("cardroom %s exited cleanly on SIGKILL", s.part)
	}
}

// stop stops every part with SIGTERM, the gateway first, and expects each
// to exit cleanly.
func (c *cluster) stop() {
	c.t.Helper()
	c.gateway.stop()
	for _, s := range c.parts() {
		if s != c.gateway && s.cmd.ProcessState == nil {
			s.stop()
		}
	}
}

// logs is everything the parts logged, for a failure message.
func (c *cluster) logs() string {
	var b strings.Builder
	for _, s := range c.parts() {
		b.WriteString("== " + s.part + "\n" + s.earlier.String() + s.stderr.String())
	}
	return b.String()
}

func envOf(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in the child's environment
		}
	}
	return v
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
