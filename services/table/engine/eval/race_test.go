//go:build race

package eval

// raceEnabled shrinks the random cross-checks under the race detector, which
// makes them about ten times slower; the exhaustive check still runs in full.
const raceEnabled = true
