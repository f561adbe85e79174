package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunPluribus runs the command on the Pluribus samples and checks one
// STACKS line per file, in argument order, matching each file's
// finishing_stacks (read from the file itself).
func TestRunPluribus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../phh/testdata/pluribus/*/*.phh")
	if err != nil || len(files) != 15 {
		t.Fatalf("glob: %d files, %v", len(files), err)
	}
	var out bytes.Buffer
	if err := run(files, &out); err != nil {
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

func TestRunBadFiles(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run([]string{"does-not-exist.phh"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "does-not-exist.phh\tERROR\t") {
		t.Fatalf("got %q", out.String())
	}
	if err := run(nil, &out); err == nil {
		t.Fatal("no files: want a usage error")
	}
}

// finishing returns the finishing_stacks line's value of a PHH file as
// written, "[...]".
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
