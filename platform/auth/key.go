package auth

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeyFile is the name of the generated dev signing key inside the data dir.
const KeyFile = "jwt.key"

// ResolveKey returns the configured signing key (CARDROOM_JWT_KEY) when it
// is set, and otherwise the dev key in dataDir, generating it first if
// needed.
func ResolveKey(configured, dataDir string) ([]byte, error) {
	if configured != "" {
		if len(configured) < MinKeyLen {
			return nil, fmt.Errorf("CARDROOM_JWT_KEY is %d bytes, need at least %d", len(configured), MinKeyLen)
		}
		return []byte(configured), nil
	}
	return LoadOrCreateKey(dataDir)
}

// LoadOrCreateKey returns the dev signing key stored in dataDir/jwt.key,
// creating the directory and a random key (mode 0600) when there is none.
// The file holds the key as text, exactly as CARDROOM_JWT_KEY would, so a
// second process can be given the same key by copying the file's content.
// Concurrent callers (two processes starting together) all end up with
// the one key that was written first.
func LoadOrCreateKey(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, KeyFile)
	key, err := readKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir for signing key: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	text := base64.RawURLEncoding.EncodeToString(raw)

	// Write a complete temporary file, then link it into place: a reader
	// never sees a half-written key, and when two processes race the
	// link fails for the loser, which then reads the winner's key.
	if err := linkNewFile(path, []byte(text+"\n")); err != nil {
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	return readKey(path)
}

// linkNewFile writes data to a synced temporary file of mode 0600 beside
// path and hard-links it to path. An existing path is left as it is.
func linkNewFile(path string, data []byte) (err error) {
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

func readKey(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	// A signing key others can read lets them mint admin tokens.
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("signing key %s has mode %v; want 0600 (chmod 600 %s)", path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if len(key) < MinKeyLen {
		return nil, fmt.Errorf("signing key %s is %d bytes, need at least %d", path, len(key), MinKeyLen)
	}
	return []byte(key), nil
}
