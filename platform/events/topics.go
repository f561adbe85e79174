package events

// The table service's topics, declared once for the table service that
// publishes them and for seating and the tournament that consume them;
// the payload of each is the table/v1 message of the same name.
const (
	// TopicTableOpened carries tablev1.TableOpened: the floor opened a table.
	TopicTableOpened = "table.opened"
	// TopicSeatOpened carries tablev1.SeatOpened: a seat emptied.
	TopicSeatOpened = "table.seat_opened"
	// TopicPlayerSeated carries tablev1.PlayerSeated: a player sat down.
	TopicPlayerSeated = "table.player_seated"
	// TopicPlayerLeft carries tablev1.PlayerLeft: a player left the table.
	TopicPlayerLeft = "table.player_left"
	// TopicHandEnded carries tablev1.HandEnded: a hand is over.
	TopicHandEnded = "table.hand_ended"
	// TopicTableClosed carries tablev1.TableClosed: the table closed.
	TopicTableClosed = "table.closed"
	// TopicMoveUpdated carries tablev1.MoveUpdated: a tournament move
	// changed state.
	TopicMoveUpdated = "table.move_updated"
)
