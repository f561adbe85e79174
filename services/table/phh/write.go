package phh

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// WriteTo writes h as a PHH file: the required fields first, then the
// optional ones in the order of the specification, then user-defined fields
// sorted by name, one action per line. It writes what h holds; Validate it
// first to be sure the result is a valid hand.
func (h *History) WriteTo(w io.Writer) (int64, error) {
	b, err := h.Marshal()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// Marshal returns h as a PHH file (see WriteTo).
func (h *History) Marshal() ([]byte, error) {
	var b bytes.Buffer
	line := func(key, val string) {
		b.WriteString(key)
		b.WriteString(" = ")
		b.WriteString(val)
		b.WriteByte('\n')
	}
	line("variant", quote(h.Variant))
	if h.AnteTrimmingStatus != nil {
		line("ante_trimming_status", strconv.FormatBool(*h.AnteTrimmingStatus))
	}
	if h.Antes != nil {
		line("antes", numberList(h.Antes))
	}
	if h.BlindsOrStraddles != nil {
		line("blinds_or_straddles", numberList(h.BlindsOrStraddles))
	}
	for _, f := range []struct {
		key string
		n   *Number
	}{{"bring_in", h.BringIn}, {"small_bet", h.SmallBet}, {"big_bet", h.BigBet}, {"min_bet", h.MinBet}} {
		if f.n != nil {
			line(f.key, f.n.String())
		}
	}
	if h.StartingStacks != nil {
		line("starting_stacks", numberList(h.StartingStacks))
	}
	if h.Actions != nil {
		b.WriteString("actions = [")
		for _, a := range h.Actions {
			b.WriteString("\n  ")
			b.WriteString(quote(a.String()))
			b.WriteByte(',')
		}
		if len(h.Actions) > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("]\n")
	}
	for _, f := range infoFields {
		v, ok := h.Info[f.name]
		if !ok {
			continue
		}
		s, err := encodeValue(v)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", f.name, err)
		}
		line(f.name, s)
	}
	if h.Seats != nil {
		parts := make([]string, len(h.Seats))
		for i, s := range h.Seats {
			parts[i] = strconv.FormatInt(s, 10)
		}
		line("seats", "["+strings.Join(parts, ", ")+"]")
	}
	if h.Players != nil {
		parts := make([]string, len(h.Players))
		for i, p := range h.Players {
			parts[i] = quote(p)
		}
		line("players", "["+strings.Join(parts, ", ")+"]")
	}
	if h.FinishingStacks != nil {
		line("finishing_stacks", numberList(h.FinishingStacks))
	}
	if h.Winnings != nil {
		line("winnings", numberList(h.Winnings))
	}
	if h.TimeBanks != nil {
		line("time_banks", numberList(h.TimeBanks))
	}
	// User-defined fields: plain values first, then tables, because a TOML
	// key written after a [table] header would land inside that table.
	var tables bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(h.Extra)) {
		var e bytes.Buffer
		if err := toml.NewEncoder(&e).Encode(map[string]any{k: h.Extra[k]}); err != nil {
			return nil, fmt.Errorf("write %s: %w", k, err)
		}
		if bytes.HasPrefix(e.Bytes(), []byte("[")) {
			tables.WriteByte('\n')
			tables.Write(e.Bytes())
		} else {
			b.Write(e.Bytes())
		}
	}
	b.Write(tables.Bytes())
	return b.Bytes(), nil
}

// encodeValue writes one TOML value through the TOML library, so strings,
// floats and times are escaped and formatted exactly as TOML requires.
func encodeValue(v any) (string, error) {
	var e bytes.Buffer
	if err := toml.NewEncoder(&e).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	s, ok := strings.CutPrefix(strings.TrimSuffix(e.String(), "\n"), "v = ")
	if !ok {
		return "", fmt.Errorf("unexpected encoding %q", e.String())
	}
	return s, nil
}

func numberList(ns []Number) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = n.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// quote writes s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Not UTF-8; TOML cannot hold it. Write the replacement
			// character rather than an invalid file.
			b.WriteString(`\uFFFD`)
			i++
			continue
		}
		i += size
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
