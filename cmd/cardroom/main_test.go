package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the cardroom binaries the end-to-end tests built (tens
// of megabytes each, in their own temporary directories) once every test
// has run: a test run leaves nothing behind.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, path := range []string{binary.path, seededBinary.path} {
		if path != "" {
			_ = os.RemoveAll(filepath.Dir(path))
		}
	}
	os.Exit(code)
}
