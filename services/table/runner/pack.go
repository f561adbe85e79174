package runner

import (
	"fmt"

	"github.com/klauspost/compress/s2"

	"github.com/cardroom/cardroom/services/table/seal"
)

// packS2 starts a packed blob: the rest is an s2 block. What was stored
// before packing is plain JSON, which never starts with this byte, and
// still reads.
const packS2 byte = 0x01

// sealPacked compresses plain and seals it for ad. What the table seals
// is JSON (the hand in progress, a finished hand's history), which s2
// makes 40-60 % smaller for about a microsecond a kilobyte; the bytes
// stored are what PostgreSQL writes to its WAL, and the hand in progress
// is written on every action. The ciphertext's length follows the
// compressed length, as it followed the JSON's before: nothing a player
// sends is compressed beside the cards but amounts, action kinds and
// seats, digits that no card in the JSON (a rank-and-suit string, a
// number in a list) spells out.
func sealPacked(s *seal.Sealer, plain []byte, ad string) []byte {
	packed := make([]byte, 1+s2.MaxEncodedLen(len(plain)))
	packed[0] = packS2
	n := len(s2.Encode(packed[1:], plain))
	return s.Seal(packed[:1+n], ad)
}

// openPacked opens what sealPacked sealed (or what was sealed unpacked,
// before it).
func openPacked(s *seal.Sealer, sealed []byte, ad string) ([]byte, error) {
	plain, err := s.Open(sealed, ad)
	if err != nil || len(plain) == 0 || plain[0] != packS2 {
		return plain, err
	}
	out, err := s2.Decode(nil, plain[1:])
	if err != nil {
		return nil, fmt.Errorf("unpack: %w", err)
	}
	return out, nil
}
