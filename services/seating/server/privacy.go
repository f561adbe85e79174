package server

import (
	"context"
	"strings"
	"sync"
	"unicode"

	"google.golang.org/protobuf/proto"

	"github.com/cardroom/cardroom/platform/auth"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
)

// names caches the display names players go by on the board, so a feed
// does not read them for every update. Names are set through this process
// (remember) or read from the store on a miss; a name changed through
// another replica shows here after a restart.
type names struct {
	mu    sync.Mutex // mu guards known.
	known map[string]string
}

// remember records the display name the caller's token carries, when the
// request acts as a player and the name is new, so other players see it
// instead of the account id.
func (s *Server) remember(ctx context.Context) error {
	c, _ := auth.FromContext(ctx)
	if !c.Is(auth.Player) || c.Name == "" {
		return nil
	}
	s.names.mu.Lock()
	same := s.names.known[c.Subject] == c.Name
	s.names.mu.Unlock()
	if same {
		return nil
	}
	if err := s.room.SetName(ctx, c.Subject, c.Name); err != nil {
		return err
	}
	s.names.mu.Lock()
	s.names.known[c.Subject] = c.Name
	s.names.mu.Unlock()
	return nil
}

// lookup returns the display names of players, from the cache or else the
// store.
func (s *Server) lookup(ctx context.Context, players []string) (map[string]string, error) {
	out := make(map[string]string, len(players))
	var missing []string
	s.names.mu.Lock()
	for _, p := range players {
		if n, ok := s.names.known[p]; ok {
			out[p] = n
		} else {
			missing = append(missing, p)
		}
	}
	s.names.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	found, err := s.room.Names(ctx, missing)
	if err != nil {
		return nil, err
	}
	s.names.mu.Lock()
	defer s.names.mu.Unlock()
	for p, n := range found {
		s.names.known[p] = n
		out[p] = n
	}
	return out, nil
}

// boardsFor returns boards as the caller may see them. Staff see every
// player's id. A request acting as a player sees its own lines with its id
// and every other player only by display name (or initials): players never
// learn each other's account ids from a waitlist or the board.
func (s *Server) boardsFor(ctx context.Context, boards []*seatingv1.WaitlistBoard) ([]*seatingv1.WaitlistBoard, error) {
	c, _ := auth.FromContext(ctx)
	ids := map[string]bool{}
	for _, b := range boards {
		eachPlayer(b, func(id *string, _ *string) { ids[*id] = true })
	}
	list := make([]string, 0, len(ids))
	for id := range ids {
		if id != "" {
			list = append(list, id)
		}
	}
	known, err := s.lookup(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make([]*seatingv1.WaitlistBoard, len(boards))
	for i, b := range boards {
		b = proto.CloneOf(b)
		eachPlayer(b, func(id, display *string) {
			if *id == "" {
				return
			}
			*display = known[*id]
			if *display == "" {
				*display = Initials(*id)
			}
			if c.Is(auth.Player) && *id != c.Subject {
				*id = ""
			}
		})
		out[i] = b
	}
	return out, nil
}

// eachPlayer calls fn with the player id and display name of every line of
// b that names a player.
func eachPlayer(b *seatingv1.WaitlistBoard, fn func(id, display *string)) {
	for _, e := range b.GetEntries() {
		fn(&e.PlayerId, &e.DisplayName)
	}
	for _, t := range b.GetTables() {
		for _, st := range t.GetSeats() {
			fn(&st.PlayerId, &st.DisplayName)
		}
	}
	for _, o := range b.GetOffers() {
		fn(&o.PlayerId, &o.DisplayName)
	}
	for _, a := range b.GetAbsences() {
		fn(&a.PlayerId, &a.DisplayName)
	}
}

// Initials returns what other players see of a player who has no display
// name: the first letter of each part of the id ("anna-korhonen" → "A.K.").
func Initials(id string) string {
	var b strings.Builder
	for part := range strings.FieldsFuncSeq(id, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, r := range part {
			b.WriteRune(unicode.ToUpper(r))
			b.WriteByte('.')
			break
		}
		if b.Len() >= 8 {
			break
		}
	}
	if b.Len() == 0 {
		return "?"
	}
	return b.String()
}
