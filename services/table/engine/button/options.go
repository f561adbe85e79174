package button

// Choice is what a player who owes blinds, or has just sat down, may do.
type Choice uint8

// Choices (TP-13, TP-15, TP-16, TP-18).
const (
	// WaitForBigBlind sits out until the big blind reaches the seat; the
	// player then posts the normal big blind only and owes nothing more.
	WaitForBigBlind Choice = iota
	// PostNow pays what is owed and deals the player in at once, anywhere
	// except between the button and the big blind (TP-17, G-06).
	PostNow
)

// String returns the choice's name.
func (c Choice) String() string {
	if c == PostNow {
		return "post_now"
	}
	return "wait_for_big_blind"
}

// Option is one thing a player may choose before the next hand.
type Option struct {
	Choice Choice
	// Posts are what PostNow puts in at the table's current blinds (the
	// planner caps them at the stack). Empty for WaitForBigBlind.
	Posts []Post
	// OnButtonOnly means the posts may be made only when the seat has the
	// button (TP-16, literal reading).
	OnButtonOnly bool
	Rule         string
	Explanation  string
}

// Options returns the choices of the player in seat s before the next hand
// on a cash table: nil when the player owes nothing (or on a tournament
// table, where nobody waits or owes). Set Seat.PostNow to take the PostNow
// option.
func Options(seat int, s Seat, st Stakes, tournament bool) []Option {
	if tournament || !s.Occupied() {
		return nil
	}
	posts, rule, onButton, why := duePosts(seat, s, st)
	if posts == nil {
		return nil
	}
	wait := Option{Choice: WaitForBigBlind, Rule: rule,
		Explanation: "sit out until the big blind reaches the seat, then post the normal big blind only"}
	if s.New && !s.Debt.Owes() {
		wait.Explanation = "sit out until it is the seat's turn to pay the big blind"
	}
	return []Option{wait, {Choice: PostNow, Posts: posts, OnButtonOnly: onButton, Rule: rule, Explanation: why}}
}

// duePosts returns what a cash seat must post to be dealt in out of the
// big-blind position, the rule that demands it, whether only the button may
// do it, and why. It returns nil posts when the seat owes nothing.
func duePosts(seat int, s Seat, st Stakes) (posts []Post, rule string, onButton bool, why string) {
	bb := Post{Seat: seat, Kind: PostMissedBigBlind, Amount: st.BigBlind, Live: true}
	sb := Post{Seat: seat, Kind: PostDeadSmallBlind, Amount: st.SmallBlind, Live: false}
	rebought := ""
	if s.Rebought {
		rebought = "; the blinds passed while the player had no chips (TP-19)"
	}
	switch {
	case s.New && s.Debt.Owes():
		bb.Rule, sb.Rule = "TP-16", "G-06"
		return []Post{bb, sb}, "TP-16", true,
			"a new player who let the big blind pass posts the small and the big blind on the button: the big blind live, the small blind dead (G-06)"
	case s.New:
		return []Post{{Seat: seat, Kind: PostNewPlayerBigBlind, Amount: st.BigBlind, Live: true, Rule: "TP-13"}}, "TP-13", false,
			"a new player may post an amount equal to the big blind, live, and be dealt in at once"
	case s.Debt.BigBlind && s.Debt.SmallBlind:
		bb.Rule, sb.Rule = "TP-15", "TP-15"
		return []Post{bb, sb}, "TP-15", false,
			"missed both blinds: post the big blind live and the small blind dead" + rebought
	case s.Debt.BigBlind:
		bb.Rule = "TP-15"
		return []Post{bb}, "TP-15", false, "missed the big blind: post it live" + rebought
	case s.Debt.SmallBlind:
		sb.Rule = "TP-18"
		return []Post{sb}, "TP-18", false,
			"missed the small blind only: post it before being dealt in, dead (G-06)" + rebought
	}
	return nil, "", false, ""
}
