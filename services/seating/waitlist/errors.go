package waitlist

import "github.com/cardroom/cardroom/platform/fault"

// Faults the seating domain reports. Reasons are stable, machine-readable
// and documented here once; platform/rpc maps the kinds to gRPC codes.
// Every refusal names its rule: G-21 for lists, offers and seats (the
// house's seating rules), G-20 for timers, CS-13/CS-14 for absences. A
// request that conflicts with the state of the list (not seated, not away,
// an offer no longer open, no decision pending) is a Conflict: 409 over
// REST, as a retry of the same request cannot succeed until that changes.
var (
	// ErrAlreadyOnList: a player is on each list at most once.
	ErrAlreadyOnList = fault.Rule(fault.Conflict, "G-21", "ALREADY_ON_LIST", "the player is already on this list")
	// ErrAlreadySeated: a seated player asks for a table change instead of
	// joining their own game's list, and never holds two seats in one game.
	ErrAlreadySeated = fault.Rule(fault.Conflict, "G-21", "ALREADY_SEATED", "the player already holds a seat in this game")
	// ErrFloorSignUpOnly: the game takes sign-ups only through the floor (G-21).
	ErrFloorSignUpOnly = fault.Rule(fault.Precondition, "G-21", "FLOOR_SIGN_UP_ONLY", "this game's list takes players only through the floor, in the room")
	// ErrNotOnList: the player has no entry on the list.
	ErrNotOnList = fault.New(fault.NotFound, "NOT_ON_LIST", "the player is not on this list")
	// ErrNotSeated: the player holds no seat in this game (or not at that table).
	ErrNotSeated = fault.Rule(fault.Conflict, "G-21", "NOT_SEATED", "the player holds no seat here")
	// ErrOfferNotFound: no such offer.
	ErrOfferNotFound = fault.New(fault.NotFound, "OFFER_NOT_FOUND", "no such seat offer")
	// ErrOfferNotYours: only the player offered a seat may answer for it.
	ErrOfferNotYours = fault.Rule(fault.Forbidden, "G-21", "OFFER_NOT_YOURS", "the seat was offered to another player")
	// ErrOfferExpired: the offer's time ran out.
	ErrOfferExpired = fault.Rule(fault.Conflict, "G-21", "OFFER_EXPIRED", "the seat offer has expired")
	// ErrOfferClosed: the offer was already declined, expired or withdrawn.
	ErrOfferClosed = fault.Rule(fault.Conflict, "G-21", "OFFER_CLOSED", "the seat offer is no longer open")
	// ErrSeatedElsewhere: G-21, a player may not hold seats in two games;
	// the table service refuses the sit-down with the same reason.
	ErrSeatedElsewhere = fault.Rule(fault.Conflict, "G-21", "SEATED_AT_ANOTHER_TABLE", "the player holds a seat in another game")
	// ErrTimerOutOfRange: a timer outside what the house allows.
	ErrTimerOutOfRange = fault.Rule(fault.Invalid, "G-20", "TIMER_OUT_OF_RANGE", "the timer is outside the allowed range")
	// ErrReasonRequired: floor decisions that change a player's place carry a reason.
	ErrReasonRequired = fault.Rule(fault.Invalid, "G-21", "REASON_REQUIRED", "the floor must give a reason")
	// ErrBadPosition: a position outside the list.
	ErrBadPosition = fault.New(fault.Invalid, "POSITION_OUT_OF_RANGE", "no such position on the list")
	// ErrTableNotFound: a table this game does not have.
	ErrTableNotFound = fault.New(fault.NotFound, "TABLE_NOT_FOUND", "seating knows no such table")
	// ErrAlreadyAway: the player's absence is already running.
	ErrAlreadyAway = fault.Rule(fault.Conflict, "CS-13", "ALREADY_AWAY", "the player is already away")
	// ErrNotAway: the player is at their seat.
	ErrNotAway = fault.Rule(fault.Conflict, "CS-13", "NOT_AWAY", "the player is not away")
	// ErrLongBreakUsed: CS-14, one long break per player per gaming day.
	ErrLongBreakUsed = fault.Rule(fault.Precondition, "CS-14", "LONG_BREAK_USED", "the player has had their long break this gaming day")
	// ErrNoDecisionPending: the floor decides an absence once its timer ran out (CS-13).
	ErrNoDecisionPending = fault.Rule(fault.Conflict, "CS-13", "NO_DECISION_PENDING", "the absence's timer has not run out")
	// ErrExtendRequired: keeping an overdue seat needs a new time limit.
	ErrExtendRequired = fault.Rule(fault.Invalid, "CS-13", "EXTEND_REQUIRED", "keeping the seat needs more time (extend)")
)
