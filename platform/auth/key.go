package auth

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"path/filepath"

	"github.com/cardroom/cardroom/platform/keyfile"
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
// creating the directory and a random key (mode 0600) when there is none
// (keyfile.LoadOrCreate: concurrent callers all end up with the one key
// written first). The file holds the key as text, exactly as
// CARDROOM_JWT_KEY would, so a second process can be given the same key by
// copying the file's content.
func LoadOrCreateKey(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, KeyFile)
	text, err := keyfile.LoadOrCreate(path, func() (string, error) {
		raw := make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return "", err
		}
		return base64.RawURLEncoding.EncodeToString(raw), nil
	})
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if len(text) < MinKeyLen {
		return nil, fmt.Errorf("signing key %s is %d bytes, need at least %d", path, len(text), MinKeyLen)
	}
	return []byte(text), nil
}
