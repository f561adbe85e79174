package waitlist

// EventKind names what happened; each kind is published on its own topic.
type EventKind int

// Event kinds.
const (
	OfferMade EventKind = iota + 1
	OfferAccepted
	OfferDeclined
	OfferExpired
	OfferWithdrawn
	PlayerAway
	PlayerBack
	AbsenceOverdue
	SeatReleased
	OpenTableSuggested
	HoldLapsed
)

var topics = map[EventKind]string{
	OfferMade:          "seating.offer_made",
	OfferAccepted:      "seating.offer_accepted",
	OfferDeclined:      "seating.offer_declined",
	OfferExpired:       "seating.offer_expired",
	OfferWithdrawn:     "seating.offer_withdrawn",
	PlayerAway:         "seating.player_away",
	PlayerBack:         "seating.player_back",
	AbsenceOverdue:     "seating.absence_overdue",
	SeatReleased:       "seating.seat_released",
	OpenTableSuggested: "seating.open_table_suggested",
	HoldLapsed:         "seating.hold_lapsed",
}

// Topic is the bus topic events of kind k are published on.
func (k EventKind) Topic() string { return topics[k] }

// Event is one fact a change of a Game announces. Offer events carry the
// offer, absence events the absence, OpenTableSuggested the counts.
type Event struct {
	Kind      EventKind
	Offer     Offer
	Absence   Absence
	Waiting   int
	Threshold int
}
