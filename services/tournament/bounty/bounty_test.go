package bounty

import (
	"slices"
	"testing"
)

// TestEliminators_G36: the bounty goes to the winners of the pots the
// busted player was in, by the chips each took from them; a side pot the
// busted player was not in gives no share.
func TestEliminators_G36(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		busted int
		pots   []Pot
		want   []Share
	}{
		{"one winner", 2, []Pot{{Eligible: []int{1, 2}, Winners: []Share{{1, 400}}}}, []Share{{1, 400}}},
		{"split pot by share", 3, []Pot{{Eligible: []int{0, 3, 5}, Winners: []Share{{5, 300}, {0, 300}}}}, []Share{{0, 300}, {5, 300}}},
		{"side pot without the busted player does not count", 4, []Pot{
			{Eligible: []int{1, 2, 4}, Winners: []Share{{2, 900}}},
			{Eligible: []int{1, 2}, Winners: []Share{{1, 500}}},
		}, []Share{{2, 900}}},
		{"main and side pot both lost by the busted player", 4, []Pot{
			{Eligible: []int{1, 2, 4}, Winners: []Share{{2, 900}}},
			{Eligible: []int{1, 4}, Winners: []Share{{1, 100}}},
		}, []Share{{1, 100}, {2, 900}}},
		{"hi/lo halves add up per seat", 0, []Pot{{Eligible: []int{0, 1, 2}, Winners: []Share{{1, 150}, {2, 75}, {1, 75}}}}, []Share{{1, 225}, {2, 75}}},
		{"nobody else won: unclaimed", 0, []Pot{{Eligible: []int{1, 2}, Winners: []Share{{1, 100}}}}, []Share{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Eliminators(tc.busted, tc.pots); !slices.Equal(got, tc.want) {
				t.Fatalf("Eliminators = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSplit_G36: a knockout pays the whole head in cash; a progressive
// knockout pays half (the odd cent in cash) and adds half to the winner's
// head; several winners share each part by chips, largest remainder,
// ties to the lower seat; every split sums to the head to the cent.
func TestSplit_G36(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		head        int64
		progressive bool
		by          []Share
		want        []Award
	}{
		{"knockout, one winner", 2500, false, []Share{{3, 1}}, []Award{{3, 2500, 0}}},
		{"pko, one winner", 2500, true, []Share{{3, 1}}, []Award{{3, 1250, 1250}}},
		{"pko, odd cent to cash", 2501, true, []Share{{3, 1}}, []Award{{3, 1251, 1250}}},
		{"pko, chopped pot, odd cents to the lower seat", 2501, true, []Share{{1, 300}, {6, 300}}, []Award{{1, 626, 625}, {6, 625, 625}}},
		{"knockout, shares 3:1", 1000, false, []Share{{1, 750}, {2, 250}}, []Award{{1, 750, 0}, {2, 250, 0}}},
		{"knockout, thirds", 1000, false, []Share{{1, 1}, {2, 1}, {4, 1}}, []Award{{1, 334, 0}, {2, 333, 0}, {4, 333, 0}}},
		{"big numbers do not overflow", 1 << 40, false, []Share{{1, 1 << 40}, {2, 1 << 40}}, []Award{{1, 1 << 39, 0}, {2, 1 << 39, 0}}},
		{"no winner: unclaimed", 1000, true, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Split(tc.head, tc.progressive, tc.by)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Split = %v, want %v", got, tc.want)
			}
			var sum int64
			for _, a := range got {
				sum += a.Cash + a.Head
			}
			if len(got) > 0 && sum != tc.head {
				t.Fatalf("awards sum to %d, head %d", sum, tc.head)
			}
		})
	}
}

// TestValidate_G36: the bounty is a part of the buy-in's prize part.
func TestValidate_G36(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		r       Rules
		wantErr bool
	}{
		{"none", Rules{}, false},
		{"knockout", Rules{Amount: 500}, false},
		{"pko", Rules{Amount: 500, Progressive: true}, false},
		{"negative", Rules{Amount: -1}, true},
		{"progressive without an amount", Rules{Progressive: true}, true},
		{"the whole prize part", Rules{Amount: 1000}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := tc.r.Validate(1000); (err != nil) != tc.wantErr {
				t.Fatalf("Validate = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}
