package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPHHReplayPluribus runs `cardroom phh replay` on the Pluribus samples
// and checks one STACKS line per file, in argument order, matching each
// file's finishing_stacks (which the replayer itself ignores).
func TestPHHReplayPluribus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../services/table/phh/testdata/pluribus/*/*.phh")
	if err != nil || len(files) != 15 {
		t.Fatalf("glob: %d files, %v", len(files), err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), append([]string{"phh", "replay"}, files...), &out, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d lines for %d files:\n%s", len(lines), len(files), out.String())
	}
	for i, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] != files[i] || f[1] != "STACKS" {
			t.Fatalf("line %q", line)
		}
		if want := finishing(t, files[i]); f[2] != want {
			t.Errorf("%s: %s, finishing_stacks %s", files[i], f[2], want)
		}
	}
}

func TestPHHReplayRejectsAndBadFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A raise to 150 over a 100 big blind is below the minimum raise (TP-22).
	short := filepath.Join(dir, "short-raise.phh")
	if err := os.WriteFile(short, []byte(`variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ["d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd", "p3 cbr 150"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"phh", "replay", short, filepath.Join(dir, "missing.phh")}, &out, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], short+"\tREJECT@3\t") || !strings.Contains(lines[0], "TP-22") {
		t.Fatalf("reject line: %q", out.String())
	}
	if !strings.HasPrefix(lines[1], filepath.Join(dir, "missing.phh")+"\tERROR\t") {
		t.Fatalf("missing file line: %q", lines[1])
	}
	if err := run(t.Context(), []string{"phh", "replay"}, &out, &out); !errors.Is(err, errUsage) {
		t.Fatalf("no files: %v, want usage error", err)
	}
}

// finishing returns the finishing_stacks value of a PHH file as written, "[...]".
func finishing(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "finishing_stacks = "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s: no finishing_stacks", path)
	return ""
}
