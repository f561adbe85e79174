// Package random holds the sources every draw in the room takes its
// randomness from: crypto/rand for play, a seeded generator for tests and
// simulations, and a lock for one source shared by concurrent requests.
// The draws themselves (shuffles, picks) use math/rand/v2 on top of these
// sources, so no service writes its own bounded draw or shuffle.
package random

import (
	"crypto/rand"
	"encoding/binary"
	randv2 "math/rand/v2"
	"sync"
)

// Crypto returns a source that reads crypto/rand, the only source a live
// shuffle or seat draw may use. It is safe for concurrent use.
func Crypto() randv2.Source { return cryptoSource{} }

type cryptoSource struct{}

func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	// crypto/rand.Read never returns an error on supported platforms (since
	// Go 1.24 it crashes the program instead): nothing to handle here.
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// Seeded returns a deterministic source for tests and simulations: the same
// seed yields the same draws on every platform and Go release, because
// math/rand/v2 fixes PCG's output. It is never for play, and it is not safe
// for concurrent use (wrap it with Locked).
func Seeded(seed uint64) randv2.Source { return randv2.NewPCG(seed, seed) }

// Locked returns src made safe for concurrent use: a source shared by
// several requests draws one value at a time.
func Locked(src randv2.Source) randv2.Source { return &locked{src: src} }

type locked struct {
	mu  sync.Mutex // guards src
	src randv2.Source
}

func (l *locked) Uint64() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.src.Uint64()
}
