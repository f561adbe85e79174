package runner

import (
	"bytes"
	"testing"

	"github.com/cardroom/cardroom/services/table/seal"
)

// TestPacked: what sealPacked seals opens to the same bytes, smaller than
// the JSON it packs; what was sealed before packing (plain JSON) opens as
// it was; and a packed blob opens only for its own associated data.
func TestPacked(t *testing.T) {
	t.Parallel()
	s, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	plain := bytes.Repeat([]byte(`{"kind":6,"seat":1},{"kind":7,"seat":0,"amount":2},`), 20)
	tests := []struct {
		name   string
		sealed []byte
	}{
		{"packed", sealPacked(s, plain, "hand/t")},
		{"plain, sealed before packing", s.Seal(plain, "hand/t")},
	}
	for _, tc := range tests {
		got, err := openPacked(s, tc.sealed, "hand/t")
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s: opened %q, %v", tc.name, got, err)
		}
		if _, err := openPacked(s, tc.sealed, "hand/u"); err == nil {
			t.Errorf("%s: opened for other associated data", tc.name)
		}
	}
	if n := len(tests[0].sealed); n >= len(plain)/2 {
		t.Errorf("packed %d bytes of JSON into %d", len(plain), n)
	}
}
