// Package entry decides registration, unregistration, rebuys and add-ons
// (TR-04, TR-05, TR-13…TR-18, G-23) and says what the wallet must be asked
// to move for each as a Payment: a saga step with its own idempotency key,
// so a retry after a crash at any point pays once. It is pure: no I/O, the
// time is passed in.
package entry

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/event"
)

// Policy is the house's published entry policy for one event. Zero values
// are filled by WithDefaults from the rules' defaults.
type Policy struct {
	// LateRegistration is how long after the start registration stays open
	// (G-23); zero means entries close at the start (TR-04).
	LateRegistration time.Duration `json:"late_registration,omitempty"`
	// MaxEntrants caps the field; zero means no cap.
	MaxEntrants int `json:"max_entrants,omitempty"`
	// Reentry lets a busted player enter again while registration is open
	// (G-23): a new entry, paid in full.
	Reentry bool `json:"reentry,omitempty"`
	// MaxReentries caps a player's re-entries; zero means no cap (G-23).
	MaxReentries int `json:"max_reentries,omitempty"`
	// RebuyPeriod is how long after the start rebuys are allowed (TR-13).
	RebuyPeriod time.Duration `json:"rebuy_period,omitempty"`
	// RebuyPrice is the rebuy's prize-pool part (TR-14: the entry without
	// the house share).
	RebuyPrice int64 `json:"rebuy_price,omitempty"`
	// RebuyFee is the house share of a rebuy; TR-14 says none.
	RebuyFee int64 `json:"rebuy_fee,omitempty"`
	// RebuyChips are the chips a rebuy gives (TR-14: the starting stack).
	RebuyChips int64 `json:"rebuy_chips,omitempty"`
	// LastRebuyHands is how many hands each table still plays with rebuys
	// after the period has run out (TR-16, default 3).
	LastRebuyHands int `json:"last_rebuy_hands,omitempty"`
	// MaxRebuys caps rebuys per player; zero means no cap (G-23).
	MaxRebuys int `json:"max_rebuys,omitempty"`
	// AddOn says whether the event has an add-on (TR-17).
	AddOn bool `json:"add_on,omitempty"`
	// AddOnPrice and AddOnFee are the add-on's price (G-23); the price
	// defaults to the rebuy price.
	AddOnPrice int64 `json:"add_on_price,omitempty"`
	AddOnFee   int64 `json:"add_on_fee,omitempty"`
	// AddOnChips defaults to twice the rebuy chips (TR-17).
	AddOnChips int64 `json:"add_on_chips,omitempty"`
	// AddOnWindow is how long after the rebuy period the add-on may be
	// taken (G-23, default 15 minutes: the first break).
	AddOnWindow time.Duration `json:"add_on_window,omitempty"`
}

// Default rebuy periods (TR-13).
const (
	DefaultRebuyPeriod      = 60 * time.Minute
	DefaultLimitRebuyPeriod = 75 * time.Minute
	DefaultLastRebuyHands   = 3
	DefaultAddOnWindow      = 15 * time.Minute
)

// WithDefaults fills what the house left unset from the rules' defaults
// for e. A freezeout keeps no rebuy or add-on settings at all (TR-18).
func (p Policy) WithDefaults(e event.Event) Policy {
	// Re-entry is an entry policy, not a rebuy one: every format keeps it (G-23).
	entries := Policy{LateRegistration: p.LateRegistration, MaxEntrants: p.MaxEntrants, Reentry: p.Reentry, MaxReentries: p.MaxReentries}
	if e.Format == event.Freezeout {
		return entries
	}
	if e.Format != event.Rebuy {
		// Satellites may run rebuys only when the house says so (RebuyPeriod set).
		if p.RebuyPeriod == 0 {
			return entries
		}
	}
	if p.RebuyPeriod == 0 {
		p.RebuyPeriod = DefaultRebuyPeriod
		if e.Structure == "LIMIT" || e.Structure == "FIXED_LIMIT" {
			p.RebuyPeriod = DefaultLimitRebuyPeriod
		}
	}
	p.RebuyPrice = cmp.Or(p.RebuyPrice, e.BuyIn.PrizePool)
	p.RebuyChips = cmp.Or(p.RebuyChips, e.StartingStack)
	p.LastRebuyHands = cmp.Or(p.LastRebuyHands, DefaultLastRebuyHands)
	if p.AddOn {
		p.AddOnPrice = cmp.Or(p.AddOnPrice, p.RebuyPrice)
		p.AddOnChips = cmp.Or(p.AddOnChips, 2*p.RebuyChips)
		p.AddOnWindow = cmp.Or(p.AddOnWindow, DefaultAddOnWindow)
	}
	return p
}

// Rebuys reports whether the policy allows rebuys.
func (p Policy) Rebuys() bool { return p.RebuyPeriod > 0 }

// ErrFreezeoutRebuy refuses rebuy or add-on settings on a freezeout.
var ErrFreezeoutRebuy = fault.Rule(fault.Invalid, "TR-18", "FREEZEOUT_HAS_NO_REBUYS", "a freezeout has no rebuys or add-ons")

// Validate checks a policy the house wrote for e, before defaults.
func (p Policy) Validate(e event.Event) error {
	switch {
	case e.Format == event.Freezeout && (p.RebuyPeriod != 0 || p.AddOn || p.MaxRebuys != 0 || p.RebuyPrice != 0 || p.RebuyChips != 0):
		return ErrFreezeoutRebuy.With("field", "rebuy")
	case p.LateRegistration < 0 || p.LateRegistration > 24*time.Hour:
		return fault.Invalidf("late_registration", "must be between 0 and 24h, got %s", p.LateRegistration)
	case p.MaxEntrants < 0:
		return fault.Invalidf("max_entrants", "must not be negative")
	case p.MaxReentries < 0 || (p.MaxReentries > 0 && !p.Reentry):
		return fault.Invalidf("max_reentries", "must not be negative, and needs re-entry allowed")
	case p.RebuyPeriod < 0 || p.RebuyPeriod > 24*time.Hour:
		return fault.Invalidf("rebuy_period", "must be between 0 and 24h, got %s", p.RebuyPeriod)
	case p.RebuyPrice < 0 || p.RebuyFee < 0 || p.RebuyChips < 0 || p.AddOnPrice < 0 || p.AddOnFee < 0 || p.AddOnChips < 0:
		return fault.Invalidf("rebuy", "prices and chips must not be negative")
	case p.LastRebuyHands < 0 || p.LastRebuyHands > 20:
		return fault.Invalidf("last_rebuy_hands", "must be between 0 and 20")
	case p.MaxRebuys < 0:
		return fault.Invalidf("max_rebuys", "must not be negative")
	case p.AddOnWindow < 0 || p.AddOnWindow > 4*time.Hour:
		return fault.Invalidf("add_on_window", "must be between 0 and 4h")
	case p.AddOn && p.RebuyPeriod == 0 && e.Format != event.Rebuy:
		return fault.Rule(fault.Invalid, "TR-17", "ADD_ON_WITHOUT_REBUYS", "an add-on follows the last rebuy hand; this event has no rebuys").With("field", "add_on")
	}
	return nil
}

// Status is where an entry is in its life.
type Status uint8

// Entry statuses.
const (
	StatusUnspecified Status = iota
	// Paying: the wallet has been asked for the entry and has not answered.
	Paying
	// Active: paid and in the event.
	Active
	// Unregistered before the start; the wallet refunds the entry (TR-04).
	Unregistered
	// Forfeited: refused because someone other than the named player
	// presented it (TR-05); no refund.
	Forfeited
	// Busted: out of chips with no rebuy left.
	Busted
	// Refunded: the event was cancelled and the wallet refunded it (TR-03).
	Refunded
)

var statusNames = [...]string{"unspecified", "paying", "active", "unregistered", "forfeited", "busted", "refunded"}

// String returns the status's name.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Entry is one player's entry to one event: the ticket of TR-04, bound to
// the player (TR-05).
type Entry struct {
	EventID      string
	PlayerID     string
	Status       Status
	Rebuys       int
	AddOn        bool
	RegisteredAt time.Time
	// Withdrawals counts unregistrations, so a re-registration pays with
	// a fresh idempotency key.
	Withdrawals int
	// Reentries counts the player's entries after busting (G-23); each is
	// paid in full under its own key.
	Reentries int
	// TransferID is the wallet transfer that paid the entry.
	TransferID string
	// Table and Seat are where the seat draw placed the player (TR-06);
	// zero before the draw.
	Table, Seat int
	// HandsToMiss is what remains of a missed-hand penalty (TR-33); it
	// belongs to the entry, so it carries across table moves.
	HandsToMiss int
	// Left is set when the player has left the tournament (TR-35): the
	// entry stays in play, its blinds posted and its hands dead.
	Left bool
}

// Kind is what a payment moves.
type Kind uint8

// Payment kinds, one per wallet RPC.
const (
	KindUnspecified Kind = iota
	PayEntry             // wallet Enter
	PayRebuy             // wallet Rebuy
	PayAddOn             // wallet AddOn
	PayPrize             // wallet PayPrize
	PayVoucher           // wallet IssueVoucher
	RefundEvent          // wallet Refund
	RefundEntry          // wallet RefundEntry (TR-04)
	SettlePool           // wallet SettlePrizePool (TR-34, G-24)
	PayBounty            // wallet PayPrize at place 0: a knockout bounty (G-36)
)

var kindNames = [...]string{"unspecified", "entry", "rebuy", "add-on", "prize", "voucher", "refund", "entry-refund", "pool-settlement", "bounty"}

// String returns the kind's name, which is also its idempotency-key part.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Payment is one saga step: what to ask the wallet for. Key is the
// idempotency key; asking twice with the same key moves money once.
type Payment struct {
	Key       string
	Kind      Kind
	EventID   string
	PlayerID  string
	Currency  string
	PrizePart int64 // entries, rebuys, add-ons
	Fee       int64 // entries, rebuys, add-ons
	Amount    int64 // prizes and vouchers
	Place     int   // prizes and vouchers
	// TargetEventID is the event a satellite voucher enters (TR-19).
	TargetEventID string
	// VoucherID pays an entry with a satellite voucher.
	VoucherID string
	// Note is sent with the step where the wallet records one (a refund's
	// reason).
	Note string
	// RefundOf is the wallet transfer an entry refund reverses.
	RefundOf string
}

// maxKey is the wallet's idempotency-key limit.
const maxKey = 128

// PaymentKey returns the idempotency key of the n-th payment of its kind
// for one player in one event ("trn/<event>/<player>/rebuy/2"). It is a
// function of the step alone, so every retry of the step sends the same
// key; a key that would be too long is shortened to a hash.
func PaymentKey(eventID, playerID string, kind Kind, n int) string {
	return shortKey("trn/" + eventID + "/" + playerID + "/" + kind.String() + "/" + strconv.Itoa(n))
}

// shortKey keeps a key within the wallet's limit: one too long is
// shortened to a hash of it.
func shortKey(k string) string {
	if len(k) <= maxKey {
		return k
	}
	sum := sha256.Sum256([]byte(k))
	return "trn/h/" + hex.EncodeToString(sum[:])
}

// BountyKey returns the idempotency key of the bounty winner took for
// knocking out the n-th entry of busted ("trn/<event>/<busted>/bounty/<n>/<winner>");
// the winner's own head, collected at the end, has busted == winner.
// Shortened to a hash like PaymentKey.
func BountyKey(eventID, busted string, n int, winner string) string {
	return shortKey("trn/" + eventID + "/" + busted + "/" + PayBounty.String() + "/" + strconv.Itoa(n) + "/" + winner)
}

// Registration failures.
var (
	ErrRegistrationClosed = fault.Rule(fault.Precondition, "TR-04", "REGISTRATION_CLOSED", "registration is closed: the entry must be paid before the start")
	ErrAlreadyRegistered  = fault.New(fault.Conflict, "ALREADY_REGISTERED", "the player already has an entry in this event")
	ErrEventFull          = fault.New(fault.Precondition, "EVENT_FULL", "the event has no places left")
	ErrNotRegistered      = fault.New(fault.NotFound, "ENTRY_NOT_FOUND", "the player has no entry in this event")
	ErrUnregisterStarted  = fault.Rule(fault.Precondition, "TR-04", "UNREGISTER_AFTER_START", "an entry can be withdrawn only before the start")
	ErrPaymentInFlight    = fault.New(fault.Aborted, "ENTRY_PAYMENT_IN_FLIGHT", "the entry's payment has not settled; retry")
	ErrEntryNotPersonal   = fault.Rule(fault.Forbidden, "TR-05", "ENTRY_NOT_PERSONAL", "an entry is personal: only the named player may take its seat")
	ErrEntryNotActive     = fault.New(fault.Precondition, "ENTRY_NOT_ACTIVE", "the entry is not in play")
	ErrNoReentry          = fault.Rule(fault.Precondition, "G-23", "REENTRY_NOT_ALLOWED", "this event takes no re-entries")
	ErrReentryLimit       = fault.Rule(fault.Precondition, "G-23", "REENTRY_LIMIT_REACHED", "the player has used every re-entry this event allows")
)

// RegistrationOpen reports whether e takes entries at now: a scheduled
// event before its start, or a running one within the late-registration
// window (TR-04, G-23).
func RegistrationOpen(e event.Event, p Policy, now time.Time) error {
	switch e.Status {
	case event.Scheduled:
	case event.Running:
	default:
		return ErrRegistrationClosed.Withf("the event is %s", statusWord(e.Status))
	}
	closes := e.StartsAt.Add(p.LateRegistration)
	if !now.Before(closes) {
		return ErrRegistrationClosed.Withf("registration closed at %s", closes.UTC().Format(time.RFC3339)).
			With("closed_at", closes.UTC().Format(time.RFC3339))
	}
	return nil
}

func statusWord(s event.Status) string {
	switch s {
	case event.Finished:
		return "finished"
	case event.Cancelled:
		return "cancelled"
	}
	return "not open"
}

// Register makes player's entry to e and the entry payment to ask the
// wallet for. entrants is the number of entries already taken (paying or
// active); existing is the player's previous entry, if any. voucherID pays
// with a satellite voucher (TR-19) instead of the wallet balance.
func Register(e event.Event, p Policy, entrants int, existing *Entry, player, voucherID string, now time.Time) (Entry, Payment, error) {
	if err := RegistrationOpen(e, p, now); err != nil {
		return Entry{}, Payment{}, err
	}
	en := Entry{EventID: e.ID, PlayerID: player, Status: Paying, RegisteredAt: now}
	if existing != nil {
		switch existing.Status {
		case Paying, Active, Forfeited:
			return Entry{}, Payment{}, ErrAlreadyRegistered.Withf("%s already has a %s entry", player, existing.Status)
		case Busted:
			// G-23: a busted player enters again only where the event
			// takes re-entries, up to its limit; registration is open
			// (checked above), so this is within late registration.
			if !p.Reentry {
				return Entry{}, Payment{}, ErrNoReentry.Withf("%s is out and this event takes no re-entries", player)
			}
			if p.MaxReentries > 0 && existing.Reentries >= p.MaxReentries {
				return Entry{}, Payment{}, ErrReentryLimit.With("max_reentries", strconv.Itoa(p.MaxReentries))
			}
			en.Reentries = existing.Reentries + 1
		}
		// Re-registering after unregistering, or re-entering, is a new
		// entry with a new key.
		en.Withdrawals = existing.Withdrawals
	}
	if p.MaxEntrants > 0 && entrants >= p.MaxEntrants {
		return Entry{}, Payment{}, ErrEventFull.With("max_entrants", strconv.Itoa(p.MaxEntrants))
	}
	pay := Payment{
		Key: PaymentKey(e.ID, player, PayEntry, en.Number()), Kind: PayEntry, EventID: e.ID, PlayerID: player,
		Currency: e.BuyIn.Currency, PrizePart: e.BuyIn.PrizePool, Fee: e.BuyIn.Fee, VoucherID: voucherID,
	}
	return en, pay, nil
}

// Number is the entry's place among the player's entries to the event,
// counting withdrawn ones and re-entries: the n of its payment key.
func (en Entry) Number() int { return en.Withdrawals + en.Reentries + 1 }

// Paid settles a Paying entry once the wallet has taken the money.
func (en *Entry) Paid(transferID string) {
	en.Status = Active
	en.TransferID = transferID
}

// Unregister withdraws an entry before the start (TR-04) and returns the
// saga step that refunds it: the wallet reverses the entry's transfer,
// prize part and fee, under a key of this entry alone. It also returns
// the key of the entry's own payment, which leaves the prize pool.
func Unregister(e event.Event, en *Entry, now time.Time) (refund Payment, entryKey string, err error) {
	if en.Status == Paying {
		return Payment{}, "", ErrPaymentInFlight
	}
	if en.Status != Active {
		return Payment{}, "", ErrEntryNotActive.Withf("the entry is %s", en.Status)
	}
	if e.Status != event.Scheduled || !now.Before(e.StartsAt) {
		return Payment{}, "", ErrUnregisterStarted
	}
	n := en.Number()
	refund = Payment{
		Key: PaymentKey(e.ID, en.PlayerID, RefundEntry, n), Kind: RefundEntry, EventID: e.ID, PlayerID: en.PlayerID,
		Currency: e.BuyIn.Currency, PrizePart: e.BuyIn.PrizePool, Fee: e.BuyIn.Fee, RefundOf: en.TransferID,
		Note: "entry withdrawn before the start (TR-04)",
	}
	en.Status = Unregistered
	en.Withdrawals++
	return refund, PaymentKey(e.ID, en.PlayerID, PayEntry, n), nil
}

// Claim checks that the person taking the entry's seat is its player
// (TR-05). A mismatch forfeits the entry without refund when forfeit is
// set (the floor's call), and is refused either way.
func Claim(en *Entry, presenter string, forfeit bool) error {
	if en.Status != Active {
		return ErrEntryNotActive.Withf("the entry is %s", en.Status)
	}
	if presenter == en.PlayerID {
		return nil
	}
	if forfeit {
		en.Status = Forfeited
	}
	return ErrEntryNotPersonal.With("player_id", en.PlayerID)
}

// Table is what a rebuy or add-on decision needs to know about the
// player's table and the time.
type Table struct {
	// Now is the time of the request.
	Now time.Time
	// HandsSincePeriodEnd is how many hands have started at the player's
	// table since the rebuy period ran out (TR-16), counted by the table.
	HandsSincePeriodEnd int
	// Stack is the player's stack between hands.
	Stack int64
	// AllIn says that the player is all in in the hand in play: Stack
	// (nothing behind) is not yet what the hand leaves them.
	AllIn bool
	// Idle says that the player's table can deal no more hands (fewer than
	// two players in play with chips there, G-42): once the rebuy period
	// is over, its last rebuy hands (TR-16) are over too.
	Idle bool
}

// lastRebuyHandsOver reports whether the player's table has played its
// last rebuy hands (TR-16) once the period is over.
func (t Table) lastRebuyHandsOver(p Policy) bool {
	return t.Idle || t.HandsSincePeriodEnd >= p.LastRebuyHands
}

// Rebuy and add-on failures.
var (
	ErrNoRebuys    = fault.Rule(fault.Precondition, "TR-18", "REBUY_NOT_ALLOWED", "this event has no rebuys")
	ErrRebuyClosed = fault.Rule(fault.Precondition, "TR-16", "REBUY_PERIOD_OVER", "the rebuy period and its last rebuy hands are over")
	// ErrRebuyClosedIdle refuses a rebuy after the period at a table that
	// deals no more hands: it plays no last rebuy hands (G-42).
	ErrRebuyClosedIdle = fault.Rule(fault.Precondition, "G-42", "REBUY_PERIOD_OVER",
		"the rebuy period is over and the player's table deals no more hands, so its last rebuy hands are over")
	ErrRebuyStack      = fault.Rule(fault.Precondition, "TR-15", "REBUY_NOT_ALLOWED", "a rebuy needs a stack smaller than the starting stack")
	ErrRebuyLimit      = fault.Rule(fault.Precondition, "G-23", "REBUY_LIMIT_REACHED", "the player has used every rebuy this event allows")
	ErrNoAddOn         = fault.Rule(fault.Precondition, "TR-17", "ADD_ON_NOT_ALLOWED", "this event has no add-on")
	ErrAddOnNotYet     = fault.Rule(fault.Precondition, "TR-17", "ADD_ON_NOT_OPEN", "the add-on opens after the last rebuy hand")
	ErrAddOnClosed     = fault.Rule(fault.Precondition, "G-23", "ADD_ON_CLOSED", "the add-on window has closed")
	ErrAddOnTaken      = fault.Rule(fault.Precondition, "TR-17", "ADD_ON_TAKEN", "the player has already taken the add-on")
	ErrAddOnAfterHand  = fault.Rule(fault.Precondition, "TR-17", "ADD_ON_AFTER_HAND", "the player is all in in the hand in play: whether a rebuy must come with the add-on is known when the hand ends")
	ErrAddOnRebuyFirst = fault.Rule(fault.Precondition, "TR-17", "REBUY_BEFORE_ADD_ON", "a player with no chips must rebuy before the add-on (the two may be taken together)")
)

// rebuyOpen reports whether rebuys are still allowed at the player's table.
func rebuyOpen(e event.Event, p Policy, t Table) bool {
	if e.Status != event.Running {
		return false
	}
	if t.Now.Before(e.StartsAt.Add(p.RebuyPeriod)) {
		return true
	}
	return !t.lastRebuyHandsOver(p)
}

// Rebuy decides a rebuy for the entry (TR-13…TR-16, G-23) and returns the
// payment to ask for and the chips it gives. The entry's count goes up
// only when the wallet has paid (Rebought).
func Rebuy(e event.Event, p Policy, en Entry, t Table) (Payment, int64, error) {
	if !p.Rebuys() {
		return Payment{}, 0, ErrNoRebuys
	}
	if en.Status != Active {
		return Payment{}, 0, ErrEntryNotActive.Withf("the entry is %s", en.Status)
	}
	if !rebuyOpen(e, p, t) {
		if t.Idle && t.HandsSincePeriodEnd < p.LastRebuyHands {
			return Payment{}, 0, ErrRebuyClosedIdle
		}
		return Payment{}, 0, ErrRebuyClosed
	}
	if t.Stack >= e.StartingStack {
		return Payment{}, 0, ErrRebuyStack.Withf("stack %d is not below the starting stack %d", t.Stack, e.StartingStack).
			With("stack", strconv.FormatInt(t.Stack, 10), "starting_stack", strconv.FormatInt(e.StartingStack, 10))
	}
	if p.MaxRebuys > 0 && en.Rebuys >= p.MaxRebuys {
		return Payment{}, 0, ErrRebuyLimit.With("max_rebuys", strconv.Itoa(p.MaxRebuys))
	}
	return Payment{
		Key: PaymentKey(e.ID, en.PlayerID, PayRebuy, en.Rebuys+1), Kind: PayRebuy, EventID: e.ID, PlayerID: en.PlayerID,
		Currency: e.BuyIn.Currency, PrizePart: p.RebuyPrice, Fee: p.RebuyFee,
	}, p.RebuyChips, nil
}

// AddOn decides an add-on (TR-17, G-23). A player with no chips must take
// a rebuy with it (withRebuy); the payments are then the rebuy's and the
// add-on's, in that order, and the chips are both.
func AddOn(e event.Event, p Policy, en Entry, t Table, withRebuy bool) ([]Payment, int64, error) {
	if !p.AddOn {
		return nil, 0, ErrNoAddOn
	}
	if en.Status != Active {
		return nil, 0, ErrEntryNotActive.Withf("the entry is %s", en.Status)
	}
	if en.AddOn {
		return nil, 0, ErrAddOnTaken
	}
	periodEnd := e.StartsAt.Add(p.RebuyPeriod)
	if e.Status != event.Running || t.Now.Before(periodEnd) || !t.lastRebuyHandsOver(p) {
		return nil, 0, ErrAddOnNotYet
	}
	if !t.Now.Before(periodEnd.Add(p.AddOnWindow)) {
		return nil, 0, ErrAddOnClosed
	}
	var pays []Payment
	chips := p.AddOnChips
	if t.Stack == 0 && t.AllIn {
		// Not lost yet, nor kept: with the add-on alone a player who then
		// loses the hand skips the rebuy TR-17 asks of them; with a rebuy,
		// one who wins pays for a rebuy not needed.
		return nil, 0, ErrAddOnAfterHand
	}
	if t.Stack == 0 {
		if !withRebuy {
			return nil, 0, ErrAddOnRebuyFirst
		}
		if p.MaxRebuys > 0 && en.Rebuys >= p.MaxRebuys {
			return nil, 0, ErrRebuyLimit.With("max_rebuys", strconv.Itoa(p.MaxRebuys))
		}
		pays = append(pays, Payment{
			Key: PaymentKey(e.ID, en.PlayerID, PayRebuy, en.Rebuys+1), Kind: PayRebuy, EventID: e.ID, PlayerID: en.PlayerID,
			Currency: e.BuyIn.Currency, PrizePart: p.RebuyPrice, Fee: p.RebuyFee,
		})
		chips += p.RebuyChips
	}
	pays = append(pays, Payment{
		Key: PaymentKey(e.ID, en.PlayerID, PayAddOn, 1), Kind: PayAddOn, EventID: e.ID, PlayerID: en.PlayerID,
		Currency: e.BuyIn.Currency, PrizePart: p.AddOnPrice, Fee: p.AddOnFee,
	})
	return pays, chips, nil
}

// Settled applies a payment the wallet has made to the entry.
func (en *Entry) Settled(pay Payment) {
	switch pay.Kind {
	case PayRebuy:
		en.Rebuys++
	case PayAddOn:
		en.AddOn = true
	}
}

// CancelPayment is the saga step that refunds every entry, rebuy and
// add-on of a cancelled event (TR-03, G-30: the whole amount, fee
// included, goes back).
func CancelPayment(e event.Event, reason string) Payment {
	return Payment{Key: "trn/" + e.ID + "/refund", Kind: RefundEvent, EventID: e.ID, Currency: e.BuyIn.Currency, Note: reason}
}

// Settlement is the saga step that moves what a finished event's prize
// pool holds after its prizes — a prize withheld from an expelled player
// (TR-34), a satellite's remainder (G-24) — to player, or to the house
// when player is empty. n numbers the event's settlements, so a retry of
// the step sends its key again.
func Settlement(e event.Event, amount int64, n int, player, reason string) Payment {
	return Payment{Key: "trn/" + e.ID + "/pool-settlement/" + strconv.Itoa(n), Kind: SettlePool, EventID: e.ID, PlayerID: player,
		Currency: e.BuyIn.Currency, Amount: amount, Note: reason}
}

// ErrAlreadyLeft refuses leaving twice.
var ErrAlreadyLeft = fault.Rule(fault.Precondition, "TR-35", "ENTRY_ALREADY_LEFT", "the player has already left")

// Leave records that the player left the tournament (TR-35). Nothing is
// refunded; the stack stays in play and a finish in the money is paid.
func Leave(e event.Event, en *Entry) error {
	if e.Status != event.Running {
		return ErrEntryNotActive.Withf("the event is not running; unregister before the start (TR-04)")
	}
	if en.Status != Active {
		return ErrEntryNotActive.Withf("the entry is %s", en.Status)
	}
	if en.Left {
		return ErrAlreadyLeft
	}
	en.Left = true
	return nil
}

// ErrMayStillRebuy refuses a knock-out while the player could still rebuy.
var ErrMayStillRebuy = fault.Rule(fault.Precondition, "TR-13", "REBUY_STILL_OPEN", "the player may still rebuy at this table; confirm that they declined")

// KnockOut checks that a player out of chips is out of the tournament: in
// a rebuy event, while rebuys are open at their table (TR-13, TR-16) — or
// the add-on, which a player with no chips takes with a rebuy (TR-17) —
// only when they declined to rebuy.
func KnockOut(e event.Event, p Policy, en Entry, t Table, declined bool) error {
	if en.Status != Active {
		return ErrEntryNotActive.Withf("the entry is %s", en.Status)
	}
	if !p.Rebuys() || declined || (p.MaxRebuys > 0 && en.Rebuys >= p.MaxRebuys) {
		return nil
	}
	if rebuyOpen(e, p, t) || addOnWithRebuyOpen(e, p, en, t) {
		return ErrMayStillRebuy
	}
	return nil
}

// addOnWithRebuyOpen reports whether a player with no chips may still take
// the add-on with a rebuy (TR-17): the add-on window is open and they have
// not taken it.
func addOnWithRebuyOpen(e event.Event, p Policy, en Entry, t Table) bool {
	if !p.AddOn || en.AddOn || e.Status != event.Running {
		return false
	}
	return t.Now.Before(e.StartsAt.Add(p.RebuyPeriod).Add(p.AddOnWindow))
}
