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
// is written on every action.
//
// Compressing before sealing makes the ciphertext's length follow the
// compressed length (it followed the JSON's before, which the cards
// already moved by a byte or two). What a player chooses and the hand
// JSON carries beside the cards is amounts, action kinds and seats:
// digits. A rank-and-suit string or a number in a list never matches
// them; the deck's base64 text can, where it has a run of four digits or
// more (s2's shortest match), so someone who reads the stored lengths and
// bets such an amount may learn that the run is there, and no more.
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
