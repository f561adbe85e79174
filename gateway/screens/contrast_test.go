package screens

import (
	"math"
	"regexp"
	"strconv"
	"testing"
)

// TestTextContrast checks the claim of docs/SCREENS.md that text on the
// screens has a contrast of at least 7:1 (WCAG 2 level AAA) on its
// background: every pair of the stylesheet's colours that the screens
// put text on, by the WCAG formula.
func TestTextContrast(t *testing.T) {
	t.Parallel()
	css := string(newHandler(t).assets["room.css"].body)
	colour := map[string]string{}
	for _, m := range regexp.MustCompile(`--([a-z0-9-]+):\s*(#[0-9a-f]{3,6});`).FindAllStringSubmatch(css, -1) {
		colour[m[1]] = m[2]
	}
	pairs := []struct{ text, background string }{
		{"text", "bg"}, {"text", "surface"}, {"text", "surface-2"},
		{"muted", "bg"}, {"muted", "surface"}, {"muted", "surface-2"},
		{"accent", "bg"}, {"accent", "surface"}, {"accent-text", "accent"},
		{"good", "bg"}, {"good", "surface"}, {"warn", "bg"}, {"warn", "surface"},
		{"error", "bg"}, {"error", "surface"}, {"focus", "bg"}, {"focus", "surface"},
		{"card-black", "white"}, {"card-red", "white"},
	}
	colour["white"] = "#fff"
	for _, p := range pairs {
		fg, bg := colour[p.text], colour[p.background]
		if fg == "" || bg == "" {
			t.Errorf("--%s or --%s is not a colour of room.css", p.text, p.background)
			continue
		}
		// Playing cards are large bold text: AA for large text (4.5:1) is
		// the bar for the red suits, 7:1 for everything else.
		want := 7.0
		if p.text == "card-red" {
			want = 4.5
		}
		if got := contrast(fg, bg); got < want {
			t.Errorf("--%s (%s) on --%s (%s): contrast %.2f:1, want at least %.1f:1", p.text, fg, p.background, bg, got, want)
		}
	}
}

// contrast is the WCAG 2 contrast ratio of two sRGB colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(hex string) float64 {
	h := hex[1:]
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	var rgb [3]float64
	for i := range rgb {
		v, _ := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		c := float64(v) / 255
		if c <= 0.04045 {
			rgb[i] = c / 12.92
		} else {
			rgb[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
}
