package phh

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/services/table/engine/cards"
)

// sampleFiles returns every .phh file under testdata/dir.
func sampleFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("testdata", dir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".phh") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no samples in testdata/%s", dir)
	}
	return out
}

func parseFile(t testing.TB, path string) *History {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseBytes(data)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return h
}

// TestRoundTrip checks parse → write → parse gives the same History, and
// that writing is stable, for the Pluribus samples and the hand-written
// samples in the other variants.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	files := append(sampleFiles(t, "pluribus"), sampleFiles(t, "variants")...)
	files = append(files, sampleFiles(t, "dataset")...)
	files = append(files, sampleFiles(t, "wsop2023")...)
	if len(files) < 15+8+2+6 {
		t.Fatalf("found %d samples, want at least 31", len(files))
	}
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			h1 := parseFile(t, path)
			if err := h1.Validate(); err != nil {
				t.Fatalf("validate: %v", err)
			}
			out1, err := h1.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			h2, err := ParseBytes(out1)
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, out1)
			}
			if !reflect.DeepEqual(h1, h2) {
				t.Fatalf("round trip differs:\nfirst  %+v\nsecond %+v\nwritten:\n%s", h1, h2, out1)
			}
			out2, err := h2.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out1, out2) {
				t.Fatalf("writing is not stable:\n%s\n---\n%s", out1, out2)
			}
		})
	}
}

// TestParseFields checks that the fields of a hand-written sample land where
// they belong, including optional and user-defined fields.
func TestParseFields(t *testing.T) {
	t.Parallel()
	h := parseFile(t, "testdata/variants/nt_headsup.phh")
	if h.Variant != NoLimitHoldem || h.NumPlayers() != 2 {
		t.Fatalf("variant %q, %d players", h.Variant, h.NumPlayers())
	}
	if got := numberList(h.BlindsOrStraddles); got != "[1, 2]" {
		t.Errorf("blinds %s", got)
	}
	if h.MinBet == nil || *h.MinBet != Int(2) {
		t.Errorf("min_bet %v", h.MinBet)
	}
	if h.Players[0] != `Alice "the rock"` || h.Seats[1] != 7 {
		t.Errorf("players %q seats %v", h.Players, h.Seats)
	}
	if h.Info["hand"] != "A-17" || h.Info["seat_count"] != int64(9) || h.Info["currency"] != "EUR" {
		t.Errorf("info %v", h.Info)
	}
	if h.Extra["_source"] != "handwritten" {
		t.Errorf("extra %v", h.Extra)
	}
	if m, ok := h.Extra["_meta"].(map[string]any); !ok || m["note"] != "user-defined table" {
		t.Errorf("extra table %v", h.Extra["_meta"])
	}
	a := h.Actions[2]
	if a.Kind != CompleteBetRaise || a.Player != 2 || a.Amount != Int(6) || a.Comment != "open" {
		t.Errorf("action 2 = %+v", a)
	}
	if h.Actions[0].Cards[0] != cards.Unknown || len(h.Actions[0].Cards) != 2 {
		t.Errorf("action 0 cards %v", h.Actions[0].Cards)
	}
	if h.Actions[11].Kind != NoOp || h.Actions[12].Kind != NoOp || h.Actions[12].HasComment {
		t.Errorf("no-ops %+v %+v", h.Actions[11], h.Actions[12])
	}
}

func TestParseAction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // canonical form; "" with wantErr
		kind ActionKind
		err  bool
	}{
		{in: "d dh p1 AcKd", want: "d dh p1 AcKd", kind: DealHole},
		{in: "  d   dh  p12 ackd  ", want: "d dh p12 AcKd", kind: DealHole},
		{in: "d dh p3 ????7h", want: "d dh p3 ????7h", kind: DealHole},
		{in: "d db 2c3d4h", want: "d db 2c3d4h", kind: DealBoard},
		{in: "p1 cbr 300", want: "p1 cbr 300", kind: CompleteBetRaise},
		{in: "p1 cbr 2.5", want: "p1 cbr 2.5", kind: CompleteBetRaise},
		{in: "p1 cbr 100.0", want: "p1 cbr 100.0", kind: CompleteBetRaise},
		{in: "p2 cc", want: "p2 cc", kind: CheckCall},
		{in: "p3 f", want: "p3 f", kind: Fold},
		{in: "p3 pb", want: "p3 pb", kind: BringIn},
		{in: "p1 sm", want: "p1 sm", kind: ShowMuck},
		{in: "p1 sm AhKh", want: "p1 sm AhKh", kind: ShowMuck},
		{in: "p1 sm -", want: "p1 sm -", kind: ShowMuck},
		{in: "p1 sm ??Ad", want: "p1 sm ??Ad", kind: ShowMuck},
		{in: "p4 sd", want: "p4 sd", kind: StandPatDiscard},
		{in: "p4 sd AsQs", want: "p4 sd AsQs", kind: StandPatDiscard},
		{in: "p1 cc #  calls light ", want: "p1 cc # calls light", kind: CheckCall},
		{in: "# Burn card 6s is exposed", want: "# Burn card 6s is exposed", kind: NoOp},
		{in: "   ", want: "", kind: NoOp},
		{in: "", want: "", kind: NoOp},
		{in: "p1 cbr", err: true},
		{in: "p1 cbr x", err: true},
		{in: "p1 cbr nan", err: true},
		{in: "p0 cc", err: true},
		{in: "p01 cc", err: true},
		{in: "q1 cc", err: true},
		{in: "p1 raise 3", err: true},
		{in: "p1 cc extra", err: true},
		{in: "d dh 1 AcKd", err: true},
		{in: "d dh p1 AcAc", err: true},
		{in: "d db Xx", err: true},
		{in: "d db", err: true},
		{in: "d db Ac,Kd", err: true},
		{in: "d xx Ac", err: true},
		{in: "p1 sd -", err: true},
		{in: "p1", err: true},
	}
	for _, tt := range tests {
		a, err := ParseAction(tt.in)
		if tt.err {
			if !errors.Is(err, ErrBadAction) {
				t.Errorf("ParseAction(%q) = %+v, %v; want ErrBadAction", tt.in, a, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseAction(%q): %v", tt.in, err)
			continue
		}
		if a.Kind != tt.kind || a.String() != tt.want {
			t.Errorf("ParseAction(%q) = %v %q; want %v %q", tt.in, a.Kind, a.String(), tt.kind, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Number
		out  string
	}{
		{"300", Int(300), "300"},
		{"2.5", Float(2.5), "2.5"},
		{"100.0", Float(100), "100.0"},
		{"1e3", Float(1000), "1000.0"},
		{"inf", Float(math.Inf(1)), "inf"},
	}
	for _, tt := range tests {
		got, err := ParseNumber(tt.in)
		if err != nil || got != tt.want || got.String() != tt.out {
			t.Errorf("ParseNumber(%q) = %v (%q), %v; want %v (%q)", tt.in, got, got.String(), err, tt.want, tt.out)
		}
	}
}

// TestParseRejectsBadTypes checks that each typed field refuses a value of
// the wrong TOML type.
func TestParseRejectsBadTypes(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`variant = 1`,
		`antes = "0"`,
		`antes = [0, "a"]`,
		`min_bet = "2"`,
		`starting_stacks = 100`,
		`actions = ["p1 cc", 3]`,
		`actions = ["p1 zz"]`,
		`players = [1, 2]`,
		`seats = [1.5, 2]`,
		`ante_trimming_status = "yes"`,
		`hand = 1.5`,
		`time = "12:00"`,
		`day = "1"`,
		`variant = "NT`,
	} {
		if _, err := ParseBytes([]byte(in)); !errors.Is(err, ErrFormat) {
			t.Errorf("ParseBytes(%q) error = %v, want ErrFormat", in, err)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	const base = "variant = \"NT\"\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\nmin_bet = 2\nstarting_stacks = [100, 100, 100]\n"
	tests := []struct {
		name   string
		file   string
		index  int // action index of an *ActionError; -1 for a field error
		reason error
	}{
		{name: "unknown variant", file: strings.Replace(base, `"NT"`, `"XX"`, 1) + "actions = []", index: -1},
		{name: "missing min_bet", file: strings.Replace(base, "min_bet = 2\n", "", 1) + "actions = []", index: -1},
		{name: "limit field in no-limit", file: base + "small_bet = 2\nactions = []", index: -1},
		{name: "bring_in with blinds", file: base + "bring_in = 1\nactions = []", index: -1},
		{name: "missing actions", file: base, index: -1},
		{name: "antes length", file: strings.Replace(base, "antes = [0, 0, 0]", "antes = [0, 0]", 1) + "actions = []", index: -1},
		{name: "negative blind", file: strings.Replace(base, "[1, 2, 0]", "[1, -2, 0]", 1) + "actions = []", index: -1},
		{name: "zero stack", file: strings.Replace(base, "[100, 100, 100]", "[100, 0, 100]", 1) + "actions = []", index: -1},
		{name: "players length", file: base + "actions = []\nplayers = [\"a\"]", index: -1},
		{name: "one player", file: strings.NewReplacer("[0, 0, 0]", "[0]", "[1, 2, 0]", "[1]", "[100, 100, 100]", "[100]").Replace(base) + "actions = []", index: -1},
		{name: "no such player", file: base + `actions = ["d dh p4 AcKd"]`, index: 0, reason: ErrNoSuchPlayer},
		{name: "duplicate card in hole cards", file: base + `actions = ["d dh p1 AcKd", "d dh p2 AcQd"]`, index: 1, reason: ErrDuplicateCard},
		{name: "duplicate card on the board", file: base + `actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 2c3c", "p3 f", "p1 cc", "p2 cc", "d db KdJhTh"]`, index: 6, reason: ErrDuplicateCard},
		{name: "shows other cards", file: base + `actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 2c3c", "p1 sm AcKh"]`, index: 3, reason: ErrShownMismatch},
		{name: "shows a card dealt to another", file: base + `actions = ["d dh p1 ????", "d dh p2 QcQd", "d dh p3 2c3c", "p1 sm QcAh"]`, index: 3, reason: ErrDuplicateCard},
		{name: "zero amount", file: base + `actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 2c3c", "p3 cbr 0"]`, index: 3, reason: ErrBadAmount},
		{name: "wrong number of hole cards", file: base + `actions = ["d dh p1 AcKdQh"]`, index: 0, reason: ErrCardCount},
		{name: "short deck card", file: strings.Replace(base, `"NT"`, `"NS"`, 1) + `actions = ["d dh p1 AcKd", "d dh p2 QcQd", "d dh p3 2c3c"]`, index: 2, reason: ErrNotInDeck},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := ParseBytes([]byte(tt.file))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = h.Validate()
			var ae *ActionError
			switch {
			case tt.index < 0:
				if !errors.Is(err, ErrFormat) || errors.As(err, &ae) {
					t.Fatalf("Validate = %v; want a field error", err)
				}
			case !errors.As(err, &ae) || ae.Index != tt.index || !errors.Is(err, tt.reason):
				t.Fatalf("Validate = %v; want action %d: %v", err, tt.index, tt.reason)
			}
		})
	}
}

// FuzzParse checks that the parser never panics and that whatever it
// accepts writes out to a file that parses back to the same History.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"pluribus", "variants", "wsop2023"} {
		for _, p := range sampleFiles(f, dir) {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("variant = 'NT'\nactions = ['p1 cbr 1e400', 'p1 sm -']\nx = [1, 'a', {b = 2}]\n[[t]]\nc = 1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h1, err := ParseBytes(data)
		if err != nil {
			return
		}
		_ = h1.Validate()
		out1, err := h1.Marshal()
		if err != nil {
			// The only values Marshal cannot write are user-defined ones the
			// TOML encoder refuses; the parser produced them, so that would
			// be a bug in the round trip.
			t.Fatalf("marshal: %v", err)
		}
		h2, err := ParseBytes(out1)
		if err != nil {
			t.Fatalf("reparse: %v\ninput %q\nwritten:\n%s", err, data, out1)
		}
		out2, err := h2.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out1, out2) {
			t.Fatalf("not stable:\n%s\n---\n%s", out1, out2)
		}
		if !hasNaN(h1) && !reflect.DeepEqual(h1, h2) {
			t.Fatalf("round trip differs:\n%+v\n%+v\nwritten:\n%s", h1, h2, out1)
		}
	})
}

// hasNaN reports whether the history holds a NaN, which DeepEqual never
// finds equal to itself.
func hasNaN(h *History) bool {
	s, _ := h.Marshal()
	return bytes.Contains(s, []byte("nan"))
}
