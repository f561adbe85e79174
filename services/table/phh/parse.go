package phh

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/BurntSushi/toml"
)

// ErrFormat is returned (wrapped) when a file is not valid PHH: not TOML, a
// field of the wrong type, an action that is not an action notation, or a
// violation Validate finds.
var ErrFormat = errors.New("invalid PHH")

// fieldKind is the TOML type the specification gives a field.
type fieldKind uint8

const (
	kString fieldKind = iota
	kInt
	kNumber
	kBool
	kLocalTime
	kStringOrInt
)

// infoFields are the optional scalar fields of the specification, kept in
// History.Info, in the order of the specification's table (the order Write
// uses).
var infoFields = []struct {
	name string
	kind fieldKind
}{
	{"author", kString},
	{"event", kString},
	{"url", kString},
	{"venue", kString},
	{"address", kString},
	{"city", kString},
	{"region", kString},
	{"postal_code", kString},
	{"country", kString},
	{"time", kLocalTime},
	{"time_zone", kString},
	{"time_zone_abbreviation", kString},
	{"day", kInt},
	{"month", kInt},
	{"year", kInt},
	{"hand", kStringOrInt},
	{"level", kInt},
	{"seat_count", kInt},
	{"table", kStringOrInt},
	{"currency", kString},
	{"currency_symbol", kString},
	{"time_limit", kNumber},
}

func infoKind(name string) (fieldKind, bool) {
	for _, f := range infoFields {
		if f.name == name {
			return f.kind, true
		}
	}
	return 0, false
}

// Parse reads one PHH file. It checks the TOML syntax, the type of every
// field the specification defines and the grammar of every action; it does
// not check that the fields make a playable hand (Validate does that).
func Parse(r io.Reader) (*History, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read PHH: %w", err)
	}
	return ParseBytes(data)
}

// ParseBytes is Parse on a byte slice.
func ParseBytes(data []byte) (*History, error) {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil, fmt.Errorf("%w: toml: %v", ErrFormat, err)
	}
	h := &History{}
	for key, v := range m {
		if err := h.setField(key, v); err != nil {
			return nil, fmt.Errorf("%w: field %s: %v", ErrFormat, key, err)
		}
	}
	return h, nil
}

func (h *History) setField(key string, v any) error {
	var err error
	switch key {
	case "variant":
		s, ok := v.(string)
		if !ok {
			return typeErr("string", v)
		}
		h.Variant = s
	case "ante_trimming_status":
		b, ok := v.(bool)
		if !ok {
			return typeErr("boolean", v)
		}
		h.AnteTrimmingStatus = &b
	case "antes":
		h.Antes, err = numbers(v)
	case "blinds_or_straddles":
		h.BlindsOrStraddles, err = numbers(v)
	case "bring_in":
		h.BringIn, err = numberPtr(v)
	case "small_bet":
		h.SmallBet, err = numberPtr(v)
	case "big_bet":
		h.BigBet, err = numberPtr(v)
	case "min_bet":
		h.MinBet, err = numberPtr(v)
	case "starting_stacks":
		h.StartingStacks, err = numbers(v)
	case "finishing_stacks":
		h.FinishingStacks, err = numbers(v)
	case "winnings":
		h.Winnings, err = numbers(v)
	case "time_banks":
		h.TimeBanks, err = numbers(v)
	case "actions":
		ss, e := strs(v)
		if e != nil {
			return e
		}
		h.Actions = make([]Action, len(ss))
		for i, s := range ss {
			a, e := ParseAction(s)
			if e != nil {
				return fmt.Errorf("action %d: %w", i, e)
			}
			h.Actions[i] = a
		}
	case "players":
		h.Players, err = strs(v)
	case "seats":
		arr, ok := v.([]any)
		if !ok {
			return typeErr("array of integers", v)
		}
		h.Seats = make([]int64, len(arr))
		for i, x := range arr {
			n, ok := x.(int64)
			if !ok {
				return typeErr("array of integers", v)
			}
			h.Seats[i] = n
		}
	default:
		kind, known := infoKind(key)
		if !known {
			if h.Extra == nil {
				h.Extra = map[string]any{}
			}
			h.Extra[key] = v
			return nil
		}
		if err := checkKind(kind, v); err != nil {
			return err
		}
		if h.Info == nil {
			h.Info = map[string]any{}
		}
		h.Info[key] = v
	}
	return err
}

func checkKind(kind fieldKind, v any) error {
	switch kind {
	case kString:
		if _, ok := v.(string); !ok {
			return typeErr("string", v)
		}
	case kInt:
		if _, ok := v.(int64); !ok {
			return typeErr("integer", v)
		}
	case kNumber:
		if _, err := number(v); err != nil {
			return err
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			return typeErr("boolean", v)
		}
	case kLocalTime:
		if _, ok := v.(time.Time); !ok {
			return typeErr("local time", v)
		}
	case kStringOrInt:
		switch v.(type) {
		case string, int64:
		default:
			return typeErr("string or integer", v)
		}
	}
	return nil
}

func typeErr(want string, v any) error {
	return fmt.Errorf("want %s, have %T", want, v)
}

func number(v any) (Number, error) {
	switch x := v.(type) {
	case int64:
		return Int(x), nil
	case float64:
		return Float(x), nil
	}
	return Number{}, typeErr("integer or float", v)
}

func numberPtr(v any) (*Number, error) {
	n, err := number(v)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

func numbers(v any) ([]Number, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, typeErr("array of integers or floats", v)
	}
	out := make([]Number, len(arr))
	for i, x := range arr {
		n, err := number(x)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}

func strs(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, typeErr("array of strings", v)
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("element %d: %w", i, typeErr("string", x))
		}
		out[i] = s
	}
	return out, nil
}
