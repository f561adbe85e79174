package seal

import (
	"bytes"
	"encoding/base64"
	"errors"
	"sync"
	"testing"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, KeySize)
	s, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte(`{"deck":["As","Kd"]}`)
	ct := s.Seal(plain, "deck/t1/1")
	if bytes.Contains(ct, []byte("As")) {
		t.Fatal("ciphertext holds the plaintext")
	}
	got, err := s.Open(ct, "deck/t1/1")
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := s.Open(ct, "deck/t2/1"); !errors.Is(err, ErrOpen) {
		t.Fatalf("other associated data: %v", err)
	}
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.Open(ct, "deck/t1/1"); !errors.Is(err, ErrOpen) {
		t.Fatalf("other key: %v", err)
	}
	if bytes.Equal(ct, s.Seal(plain, "deck/t1/1")) {
		t.Fatal("two seals of the same text are equal: nonce reused")
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{1}, KeySize)
	for _, enc := range []string{base64.StdEncoding.EncodeToString(key), "0101010101010101010101010101010101010101010101010101010101010101"} {
		if k, err := ParseKey(enc); err != nil || !bytes.Equal(k, key) {
			t.Errorf("ParseKey(%q) = %v, %v", enc, k, err)
		}
	}
	if _, err := ParseKey("short"); err == nil {
		t.Error("short key accepted")
	}
	dir := t.TempDir()
	k1, err := ResolveKey("", dir)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := ResolveKey("", dir)
	if err != nil || !bytes.Equal(k1, k2) || len(k1) != KeySize {
		t.Fatalf("generated key not kept: %v", err)
	}
}

// TestResolveKeyRacingReplicasAgree: table replicas started together on
// one data dir all get the one generated key; none reads a half-written
// file (the writer used to create the file and then fill it).
func TestResolveKeyRacingReplicasAgree(t *testing.T) {
	t.Parallel()
	for round := range 50 {
		dir := t.TempDir()
		const n = 8
		keys := make([][]byte, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { keys[i], errs[i] = ResolveKey("", dir) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil || !bytes.Equal(keys[i], keys[0]) || len(keys[i]) != KeySize {
				t.Fatalf("round %d, replica %d: %x, %v; replica 0: %x", round, i, keys[i], errs[i], keys[0])
			}
		}
	}
}
