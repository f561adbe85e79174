// Package keyfile keeps a generated development key in a file of its own
// (mode 0600) so that every process started with the same data directory
// uses the same key: the token signing key and the table's seal key.
package keyfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LoadOrCreate returns the text of the key file at path (surrounding space
// trimmed). When there is none it creates the directory (mode 0700) and a
// file (mode 0600) holding the text generate returns.
//
// Processes that start together all get the key of the one file that was
// put in place first, and none ever reads a half-written one: the text is
// written and synced to a temporary file beside path, which is then
// hard-linked to path. A link, unlike a rename, never replaces a file
// already there, so the loser of a race reads the winner's key instead of
// keeping its own (two processes of one suite with different signing keys
// refuse each other's tokens).
func LoadOrCreate(path string, generate func() (string, error)) (string, error) {
	text, err := read(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return text, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("create the directory of key file %s: %w", path, err)
	}
	text, err = generate()
	if err != nil {
		return "", fmt.Errorf("generate key for %s: %w", path, err)
	}
	if err := linkNew(path, []byte(text+"\n")); err != nil {
		return "", fmt.Errorf("write key file %s: %w", path, err)
	}
	return read(path)
}

// linkNew writes data to a synced temporary file of mode 0600 beside path
// and hard-links it to path. An existing path is left as it is.
func linkNew(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer func() { err = errors.Join(err, tmp.Close()) }()
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// read returns the trimmed text of the key file at path, refusing a file
// others may read (a key anyone can read is no secret) and an empty one.
func read(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("key file %s has mode %v; want 0600 (chmod 600 %s)", path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read key file: %w", err)
	}
	text := strings.TrimSpace(string(b))
	if text == "" {
		return "", fmt.Errorf("key file %s is empty", path)
	}
	return text, nil
}
