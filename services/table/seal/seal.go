// Package seal encrypts what the table service stores that nobody may read
// without the key: decks and hands in progress (hole cards, undealt cards)
// and finished hand histories. It uses AES-256-GCM with a random nonce per
// message and binds each ciphertext to what it is for (associated data such
// as "deck/<table>/<hand>"), so a stored blob cannot be moved to another
// table or hand.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cardroom/cardroom/platform/keyfile"
)

// KeySize is the key length: AES-256.
const KeySize = 32

// KeyFile is the file, in the data directory, of a generated development key.
const KeyFile = "table-seal.key"

// ErrOpen is returned for a ciphertext that does not decrypt with this key
// and associated data. It says nothing about the content.
var ErrOpen = errors.New("seal: cannot open: wrong key, data or associated data")

// Sealer encrypts and decrypts with one key. It is safe for concurrent use.
type Sealer struct{ aead cipher.AEAD }

// New returns a Sealer for a 32-byte key.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: key is %d bytes, need %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain for the purpose named by ad.
func (s *Sealer) Seal(plain []byte, ad string) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return s.aead.Seal(nonce, nonce, plain, []byte(ad))
}

// Open decrypts a Seal output made for ad.
func (s *Sealer) Open(sealed []byte, ad string) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return nil, ErrOpen
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(ad))
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}

// ParseKey decodes a configured key: 32 bytes as standard or URL-safe
// base64, or as 64 hex digits.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, dec := range []func(string) ([]byte, error){
		base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString, hex.DecodeString,
	} {
		if k, err := dec(s); err == nil && len(k) == KeySize {
			return k, nil
		}
	}
	return nil, fmt.Errorf("seal: the key must be %d bytes in base64 or hex", KeySize)
}

// ResolveKey returns the configured key, or when none is configured a
// development key generated once and kept (mode 0600) in dataDir
// (keyfile.LoadOrCreate: replicas starting together all get the one key
// written first).
func ResolveKey(configured, dataDir string) ([]byte, error) {
	if configured != "" {
		return ParseKey(configured)
	}
	text, err := keyfile.LoadOrCreate(filepath.Join(dataDir, KeyFile), func() (string, error) {
		key := make([]byte, KeySize)
		if _, err := rand.Read(key); err != nil {
			return "", err
		}
		return base64.StdEncoding.EncodeToString(key), nil
	})
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return ParseKey(text)
}
