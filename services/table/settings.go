package table

import (
	"fmt"
	"net"
	"time"
)

// Settings are the table service's own environment variables, read by
// cmd/cardroom with platform/config (config.Parse) and listed in the
// README from this struct.
type Settings struct {
	// SealKey seals decks, hands in progress and hand histories.
	SealKey string `env:"CARDROOM_TABLE_SEAL_KEY" secret:"true" docDefault:"(empty: generated)" doc:"AES-256-GCM key (32 bytes, base64 or hex) that seals decks, hands in progress and hand histories; every replica needs the same key. Empty generates a dev key in CARDROOM_DATA_DIR/table-seal.key."`
	// HandPause is the pause between hands.
	HandPause time.Duration `env:"CARDROOM_TABLE_HAND_PAUSE" envDefault:"2s" doc:"Pause between the end of a hand and the next deal, so players see the result."`
	// ActionTimeout is the default house time per decision (G-16).
	ActionTimeout time.Duration `env:"CARDROOM_TABLE_ACTION_TIMEOUT" envDefault:"0s" doc:"Default time per decision at tables opened without their own (G-16); on expiry the player folds when facing a bet, otherwise checks (TP-59). 0 means no house clock."`
	// StateCommitters is how many group commits of table states run at
	// once (store.StateGroup).
	StateCommitters int `env:"CARDROOM_TABLE_STATE_COMMITTERS" envDefault:"2" doc:"How many group commits of the tables' action writes run at once, each on a database connection of its own. Each commit carries every write that queued while the others ran, so fewer commits at once mean fewer WAL flushes competing on the database server; 2 measured best against a 2-core PostgreSQL (docs/CAPACITY.md). Raise it with the database's cores."`
	// AdvertiseAddr is the gRPC address other table replicas forward calls
	// to this one at (see AdvertiseAddr).
	AdvertiseAddr string `env:"CARDROOM_TABLE_ADVERTISE_ADDR" docDefault:"(empty: derived)" doc:"host:port at which other table replicas reach this one's gRPC server: the tables it deals are advertised with it in Redis, and a replica that gets a call about one of them forwards the call here. Empty: CARDROOM_GRPC_ADDR when it names a host, else this host's first non-loopback IP address with its port. Unused without CARDROOM_REDIS_URL (one process)."`
}

// Config returns the service configuration of the settings for a process
// whose data lives in dataDir and whose gRPC server listens at listen: the
// seal key resolved (ResolveSealKey) and the advertised address derived
// (AdvertiseAddr).
func (s Settings) Config(dataDir, listen string) (Config, error) {
	key, err := ResolveSealKey(s.SealKey, dataDir)
	if err != nil {
		return Config{}, fmt.Errorf("table seal key: %w", err)
	}
	return Config{SealKey: key, HandPause: s.HandPause, ActionTimeout: s.ActionTimeout, StateCommitters: s.StateCommitters,
		AdvertiseAddr: AdvertiseAddr(s.AdvertiseAddr, listen)}, nil
}

// AdvertiseAddr returns the address other replicas reach this one at: the
// configured one; else the gRPC listener's address (listen, host:port) when
// it names a host; else, for a listener on every interface (":9090",
// "0.0.0.0:9090"), this host's first non-loopback IP address with the
// listener's port. It returns "" when it finds none: the replica then
// advertises no address and its tables are not forwarded to.
func AdvertiseAddr(configured, listen string) string {
	if configured != "" {
		return configured
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return listen
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	return firstRoutable(addrs, port)
}

// firstRoutable picks the first non-loopback, non-link-local address,
// preferring IPv4.
func firstRoutable(addrs []net.Addr, port string) string {
	var v6 string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsUnspecified() {
			continue
		}
		if n.IP.To4() != nil {
			return net.JoinHostPort(n.IP.String(), port)
		}
		if v6 == "" {
			v6 = net.JoinHostPort(n.IP.String(), port)
		}
	}
	return v6
}
