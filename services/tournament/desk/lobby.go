package desk

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/cardroom/cardroom/services/tournament/director"
	"github.com/cardroom/cardroom/services/tournament/entry"
	"github.com/cardroom/cardroom/services/tournament/levels"
	"github.com/cardroom/cardroom/services/tournament/store"
)

// lobbySlips is how many of the latest movement slips the lobby shows.
const lobbySlips = 20

// Picture is what a tournament clock shows, read at At: the event, the
// clock, the payouts, the players left and the chips in play.
type Picture struct {
	Tournament  store.Tournament
	Clock       Reading
	Payouts     Payouts
	PlayersLeft int
	ChipsInPlay int64
	At          time.Time
	// entries are the event's entries, for the lobby.
	entries []entry.Entry
}

// Picture reads what the event's clock shows now.
func (d *Desk) Picture(ctx context.Context, id string) (Picture, error) {
	t, err := d.store.Load(ctx, id)
	if err != nil {
		return Picture{}, err
	}
	ens, err := d.store.Entries(ctx, id)
	if err != nil {
		return Picture{}, err
	}
	pay, err := d.payouts(ctx, t)
	if err != nil {
		return Picture{}, err
	}
	at := d.now()
	p := Picture{Tournament: t, Clock: ClockAt(t, at), Payouts: pay, At: at, entries: ens}
	policy := t.Rules.Entry
	for _, en := range ens {
		if en.Status != entry.Active && en.Status != entry.Busted {
			continue // never paid, or paid back
		}
		if en.Status == entry.Active {
			p.PlayersLeft++
		}
		p.ChipsInPlay += t.Event.StartingStack + int64(en.Rebuys)*policy.RebuyChips
		if en.AddOn {
			p.ChipsInPlay += policy.AddOnChips
		}
	}
	return p, nil
}

// Standing is a player's line on the leaderboard.
type Standing struct {
	PlayerID    string
	Table, Seat int
	Stack       int64
	// HandNo is the hand the stack is after; 0 before the table dealt.
	HandNo int64
	// Rank is shared by equal stacks.
	Rank int
}

// Lobby is the event's lobby (issue 13 item 2): the clock's picture with
// what lies ahead on the sheet, the leaderboard and the latest movement
// slips.
type Lobby struct {
	Picture
	Ahead       levels.Ahead
	Leaderboard []Standing
	Slips       []director.Slip
}

// Lobby reads the event's lobby; over caches the slips of the moves
// already over, so a watch does not ask the table service for them again.
func (d *Desk) Lobby(ctx context.Context, id string, over map[string]director.Slip) (Lobby, error) {
	p, err := d.Picture(ctx, id)
	if err != nil {
		return Lobby{}, err
	}
	stacks, err := d.store.Stacks(ctx, id)
	if err != nil {
		return Lobby{}, err
	}
	l := Lobby{Picture: p, Leaderboard: leaderboard(p.Tournament, p.entries, stacks)}
	c := p.Tournament.Clock
	if c.Started.IsZero() {
		// Before the start the clock shows level 1, full length.
		c.Started = p.At
	}
	l.Ahead = c.Ahead(p.At)
	if l.Slips, err = d.latestSlips(ctx, id, over); err != nil {
		return Lobby{}, err
	}
	return l, nil
}

// MovementSlips returns every movement slip of the event with where its
// move stands at the tables (issue 10 item 4); none when the floor runs
// the tables.
func (d *Desk) MovementSlips(ctx context.Context, id string) ([]director.Slip, error) {
	if _, err := d.store.Load(ctx, id); err != nil {
		return nil, err
	}
	if d.director == nil {
		return nil, nil
	}
	slips, err := d.director.RecordedSlips(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := d.director.Track(ctx, id, slips); err != nil {
		return nil, err
	}
	return slips, nil
}

// latestSlips returns the latest movement slips, asking the table service
// where their moves stand only while one of them is not over. A table
// service that does not answer leaves them as recorded: the lobby goes on.
func (d *Desk) latestSlips(ctx context.Context, id string, over map[string]director.Slip) ([]director.Slip, error) {
	if d.director == nil {
		return nil, nil
	}
	slips, err := d.director.RecordedSlips(ctx, id)
	if err != nil {
		return nil, err
	}
	slips = slips[max(0, len(slips)-lobbySlips):]
	track := false
	for i, sl := range slips {
		if o, ok := over[sl.MoveID]; ok {
			slips[i] = o
		} else {
			track = true
		}
	}
	if !track {
		return slips, nil
	}
	if err := d.director.Track(ctx, id, slips); err != nil {
		d.log.DebugContext(ctx, "lobby: moves not tracked", "tournament", id, "error", err)
		return slips, nil
	}
	for _, sl := range slips {
		if sl.State.Final() {
			over[sl.MoveID] = sl
		}
	}
	return slips, nil
}

// leaderboard ranks the players left by their stacks after their tables'
// last hands (the starting stack and the chips bought since before a
// table has dealt), largest first; equal stacks share a rank.
func leaderboard(t store.Tournament, ens []entry.Entry, stacks map[string]store.Stack) []Standing {
	var out []Standing
	for _, en := range ens {
		if en.Status != entry.Active {
			continue
		}
		s := Standing{PlayerID: en.PlayerID, Table: en.Table, Seat: en.Seat}
		if c, ok := stacks[en.PlayerID]; ok {
			s.Stack, s.HandNo = c.Chips, c.HandNo
		} else {
			s.Stack = t.Event.StartingStack + int64(en.Rebuys)*t.Rules.Entry.RebuyChips
			if en.AddOn {
				s.Stack += t.Rules.Entry.AddOnChips
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Standing) int {
		return cmp.Or(cmp.Compare(b.Stack, a.Stack), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	for i := range out {
		out[i].Rank = i + 1
		if i > 0 && out[i-1].Stack == out[i].Stack {
			out[i].Rank = out[i-1].Rank
		}
	}
	return out
}
