package keyfile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cardroom/cardroom/platform/keyfile"
)

// TestLoadOrCreateRacingCallersAgree starts many callers at once on a key
// file that does not exist yet, each with a key of its own to offer, many
// times over: every caller must come back with the one key that is in the
// file, with no error. A writer that creates the file and then fills it
// fails this (a racing reader sees it empty); so does one that renames
// over it (an earlier caller keeps a key the file no longer holds).
func TestLoadOrCreateRacingCallersAgree(t *testing.T) {
	t.Parallel()
	const rounds, callers = 100, 8
	var offered atomic.Int64
	generate := func() (string, error) {
		return fmt.Sprintf("key-%032d", offered.Add(1)), nil
	}
	for round := range rounds {
		path := filepath.Join(t.TempDir(), "data", "dev.key")
		keys := make([]string, callers)
		errs := make([]error, callers)
		var start sync.WaitGroup
		start.Add(1)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				start.Wait()
				keys[i], errs[i] = keyfile.LoadOrCreate(path, generate)
			})
		}
		start.Done()
		wg.Wait()
		onDisk, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range callers {
			if errs[i] != nil || keys[i] != strings.TrimSpace(string(onDisk)) {
				t.Fatalf("round %d, caller %d: %q, %v; the file holds %q", round, i, keys[i], errs[i], onDisk)
			}
		}
		entries, err := os.ReadDir(filepath.Dir(path))
		if err != nil || len(entries) != 1 {
			t.Fatalf("round %d: the directory holds %d entries (%v), want only the key file", round, len(entries), err)
		}
	}
	if offered.Load() < rounds {
		t.Fatalf("only %d keys generated in %d rounds", offered.Load(), rounds)
	}
}

func TestLoadOrCreateKeepsAndProtects(t *testing.T) {
	t.Parallel()
	generate := func() (string, error) { return "fresh", nil }
	t.Run("a new file is 0600 in a 0700 directory and read back", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "data", "dev.key")
		got, err := keyfile.LoadOrCreate(path, generate)
		if err != nil || got != "fresh" {
			t.Fatalf("LoadOrCreate = %q, %v; want fresh", got, err)
		}
		for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Fatalf("%s: %v, %v; want mode %v", p, fi.Mode().Perm(), err, want)
			}
		}
	})
	t.Run("an existing key is kept, not replaced", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "dev.key")
		if err := os.WriteFile(path, []byte("  old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := keyfile.LoadOrCreate(path, generate); err != nil || got != "old" {
			t.Fatalf("LoadOrCreate = %q, %v; want old", got, err)
		}
	})
	t.Run("a key others may read is refused", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "dev.key")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := keyfile.LoadOrCreate(path, generate); err == nil || !strings.Contains(err.Error(), "0600") {
			t.Fatalf("LoadOrCreate on a 0644 key: %v, want a refusal naming 0600", err)
		}
	})
	t.Run("an empty key file is refused", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "dev.key")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := keyfile.LoadOrCreate(path, generate); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Fatalf("LoadOrCreate on an empty key: %v, want a refusal", err)
		}
	})
	t.Run("a generator's failure is returned and nothing is written", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "dev.key")
		boom := errors.New("no entropy")
		if _, err := keyfile.LoadOrCreate(path, func() (string, error) { return "", boom }); !errors.Is(err, boom) {
			t.Fatalf("LoadOrCreate = %v, want %v", err, boom)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a key file after a failed generation: %v", err)
		}
	})
}
