package server

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cardroom/cardroom/services/table/phh"
)

// TestPHHReason: a hand PHH cannot express is refused with the export's own
// reason (it used to say only "a post PHH cannot express"), any other
// failure with a bare "unsupported".
func TestPHHReason(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("an ante posted short, which PHH would count as dead money: %w", phh.ErrUnsupported),
			"an ante posted short, which PHH would count as dead money"},
		{errors.New("something else"), "unsupported"},
		{nil, ""},
	} {
		if got := phhReason(c.err); got != c.want {
			t.Errorf("phhReason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
