package waitlist

import "github.com/cardroom/cardroom/platform/fault"

// Faults the seating domain reports. Reasons are stable, machine-readable
// and documented here once; platform/rpc maps the kinds to gRPC codes.
var (
	// ErrAlreadyOnList: a player is on each list at most once.
	ErrAlreadyOnList = fault.New(fault.Conflict, "ALREADY_ON_LIST", "the player is already on this list")
	// ErrAlreadySeated: a seated player asks for a table change instead of
	// joining their own game's list, and never holds two seats in one game.
	ErrAlreadySeated = fault.New(fault.Precondition, "ALREADY_SEATED", "the player already holds a seat in this game")
	// ErrFloorSignUpOnly: the game takes sign-ups only through the floor (G-21).
	ErrFloorSignUpOnly = fault.New(fault.Precondition, "FLOOR_SIGN_UP_ONLY", "this game's list takes players only through the floor, in the room")
	// ErrNotOnList: the player has no entry on the list.
	ErrNotOnList = fault.New(fault.NotFound, "NOT_ON_LIST", "the player is not on this list")
	// ErrNotSeated: the player holds no seat in this game (or not at that table).
	ErrNotSeated = fault.New(fault.Precondition, "NOT_SEATED", "the player holds no seat here")
	// ErrOfferNotFound: no such offer.
	ErrOfferNotFound = fault.New(fault.NotFound, "OFFER_NOT_FOUND", "no such seat offer")
	// ErrOfferNotYours: only the player offered a seat may answer for it.
	ErrOfferNotYours = fault.New(fault.Forbidden, "OFFER_NOT_YOURS", "the seat was offered to another player")
	// ErrOfferExpired: the offer's time ran out.
	ErrOfferExpired = fault.New(fault.Precondition, "OFFER_EXPIRED", "the seat offer has expired")
	// ErrOfferClosed: the offer was already declined, expired or withdrawn.
	ErrOfferClosed = fault.New(fault.Precondition, "OFFER_CLOSED", "the seat offer is no longer open")
	// ErrTimerOutOfRange: a timer outside what the house allows.
	ErrTimerOutOfRange = fault.New(fault.Invalid, "TIMER_OUT_OF_RANGE", "the timer is outside the allowed range")
	// ErrReasonRequired: floor decisions that change a player's place carry a reason.
	ErrReasonRequired = fault.New(fault.Invalid, "REASON_REQUIRED", "the floor must give a reason")
	// ErrBadPosition: a position outside the list.
	ErrBadPosition = fault.New(fault.Invalid, "POSITION_OUT_OF_RANGE", "no such position on the list")
	// ErrTableNotFound: a table this game does not have.
	ErrTableNotFound = fault.New(fault.NotFound, "TABLE_NOT_FOUND", "seating knows no such table")
	// ErrAlreadyAway: the player's absence is already running.
	ErrAlreadyAway = fault.New(fault.Conflict, "ALREADY_AWAY", "the player is already away")
	// ErrNotAway: the player is at their seat.
	ErrNotAway = fault.New(fault.Precondition, "NOT_AWAY", "the player is not away")
	// ErrLongBreakUsed: CS-14, one long break per player per gaming day.
	ErrLongBreakUsed = fault.Rule(fault.Precondition, "CS-14", "LONG_BREAK_USED", "the player has had their long break this gaming day")
	// ErrNoDecisionPending: the floor decides an absence once its timer ran out (CS-13).
	ErrNoDecisionPending = fault.Rule(fault.Precondition, "CS-13", "NO_DECISION_PENDING", "the absence's timer has not run out")
	// ErrExtendRequired: keeping an overdue seat needs a new time limit.
	ErrExtendRequired = fault.New(fault.Invalid, "EXTEND_REQUIRED", "keeping the seat needs more time (extend)")
)
