//go:build !linux

package testkit

// reserve has no machine-wide claim off Linux (no abstract Unix sockets):
// FreeAddr's own listen check and per-process bookkeeping are all there is.
func reserve(int) (release func(), ok bool) { return func() {}, true }
