package entry

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cardroom/cardroom/platform/fault"
	"github.com/cardroom/cardroom/services/tournament/event"
)

var start = time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)

func ev(format event.Format, status event.Status) event.Event {
	return event.Event{
		ID: "t1", Name: "Weekly", Game: "HOLDEM", Structure: "NO_LIMIT", Format: format,
		BuyIn: event.BuyIn{PrizePool: 5000, Fee: 1100, Currency: "EUR"}, StartingStack: 10000,
		StartsAt: start, Status: status,
	}
}

// wantFault fails unless err is a fault with the reason and rule.
func wantFault(t *testing.T, err error, reason, rule string) {
	t.Helper()
	if reason == "" {
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		return
	}
	f, ok := fault.As(err)
	if !ok || f.Reason != reason || f.Rule != rule {
		t.Fatalf("err = %v, want %s (%s)", err, reason, rule)
	}
}

func TestPolicyDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		e      event.Event
		in     Policy
		expect Policy
	}{
		{"TR-13 TR-14 TR-16 rebuy event: 60 min, prize part only, starting stack, 3 hands", ev(event.Rebuy, event.Scheduled), Policy{},
			Policy{RebuyPeriod: time.Hour, RebuyPrice: 5000, RebuyChips: 10000, LastRebuyHands: 3}},
		{"TR-13 limit event: 75 min", func() event.Event { e := ev(event.Rebuy, event.Scheduled); e.Structure = "LIMIT"; return e }(), Policy{},
			Policy{RebuyPeriod: 75 * time.Minute, RebuyPrice: 5000, RebuyChips: 10000, LastRebuyHands: 3}},
		{"TR-17 add-on: twice the rebuy chips", ev(event.Rebuy, event.Scheduled), Policy{AddOn: true},
			Policy{RebuyPeriod: time.Hour, RebuyPrice: 5000, RebuyChips: 10000, LastRebuyHands: 3, AddOn: true, AddOnPrice: 5000, AddOnChips: 20000, AddOnWindow: 15 * time.Minute}},
		{"TR-18 freezeout drops rebuys, keeps late registration", ev(event.Freezeout, event.Scheduled), Policy{LateRegistration: time.Hour, RebuyPeriod: time.Hour},
			Policy{LateRegistration: time.Hour}},
		{"house values win", ev(event.Rebuy, event.Scheduled), Policy{RebuyPeriod: 30 * time.Minute, RebuyPrice: 2000, RebuyFee: 200, LastRebuyHands: 1},
			Policy{RebuyPeriod: 30 * time.Minute, RebuyPrice: 2000, RebuyFee: 200, RebuyChips: 10000, LastRebuyHands: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.in.WithDefaults(tt.e); got != tt.expect {
				t.Fatalf("WithDefaults = %+v, want %+v", got, tt.expect)
			}
		})
	}
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		format       event.Format
		p            Policy
		reason, rule string
	}{
		{"TR-18 freezeout with rebuy period", event.Freezeout, Policy{RebuyPeriod: time.Hour}, "FREEZEOUT_HAS_NO_REBUYS", "TR-18"},
		{"TR-18 freezeout with add-on", event.Freezeout, Policy{AddOn: true}, "FREEZEOUT_HAS_NO_REBUYS", "TR-18"},
		{"G-23 freezeout with late registration", event.Freezeout, Policy{LateRegistration: 90 * time.Minute}, "", ""},
		{"negative late registration", event.Freezeout, Policy{LateRegistration: -time.Minute}, "INVALID_ARGUMENT", ""},
		{"TR-17 satellite add-on without rebuys", event.Satellite, Policy{AddOn: true}, "ADD_ON_WITHOUT_REBUYS", "TR-17"},
		{"rebuy event with everything", event.Rebuy, Policy{RebuyPeriod: time.Hour, AddOn: true, MaxRebuys: 3}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantFault(t, tt.p.Validate(ev(tt.format, event.Scheduled)), tt.reason, tt.rule)
		})
	}
}

func TestRegister(t *testing.T) {
	t.Parallel()
	active := &Entry{EventID: "t1", PlayerID: "ann", Status: Active}
	withdrawn := &Entry{EventID: "t1", PlayerID: "ann", Status: Unregistered, Withdrawals: 1}
	busted := &Entry{EventID: "t1", PlayerID: "ann", Status: Busted}
	bustedTwice := &Entry{EventID: "t1", PlayerID: "ann", Status: Busted, Withdrawals: 1, Reentries: 1}
	late, reentry := time.Hour, Policy{LateRegistration: time.Hour, Reentry: true}
	tests := []struct {
		name         string
		status       event.Status
		p            Policy
		entrants     int
		existing     *Entry
		now          time.Time
		reason, rule string
		key          string
	}{
		{"TR-04 before the start", event.Scheduled, Policy{}, 0, nil, start.Add(-time.Minute), "", "", "trn/t1/ann/entry/1"},
		{"TR-04 at the start without late registration", event.Scheduled, Policy{}, 0, nil, start, "REGISTRATION_CLOSED", "TR-04", ""},
		{"TR-04 running without late registration", event.Running, Policy{}, 0, nil, start.Add(time.Minute), "REGISTRATION_CLOSED", "TR-04", ""},
		{"G-23 within the late window", event.Running, Policy{LateRegistration: time.Hour}, 0, nil, start.Add(59 * time.Minute), "", "", "trn/t1/ann/entry/1"},
		{"G-23 late window over", event.Running, Policy{LateRegistration: time.Hour}, 0, nil, start.Add(time.Hour), "REGISTRATION_CLOSED", "TR-04", ""},
		{"cancelled event", event.Cancelled, Policy{}, 0, nil, start.Add(-time.Hour), "REGISTRATION_CLOSED", "TR-04", ""},
		{"already registered", event.Scheduled, Policy{}, 1, active, start.Add(-time.Hour), "ALREADY_REGISTERED", "", ""},
		{"re-registration after unregistering gets a fresh key", event.Scheduled, Policy{}, 0, withdrawn, start.Add(-time.Hour), "", "", "trn/t1/ann/entry/2"},
		{"full", event.Scheduled, Policy{MaxEntrants: 2}, 2, nil, start.Add(-time.Hour), "EVENT_FULL", "", ""},
		{"G-23 re-entry after busting is a new entry", event.Running, reentry, 5, busted, start.Add(30 * time.Minute), "", "", "trn/t1/ann/entry/2"},
		{"G-23 each re-entry has its own key", event.Running, reentry, 5, bustedTwice, start.Add(30 * time.Minute), "", "", "trn/t1/ann/entry/4"},
		{"G-23 no re-entry in this event", event.Running, Policy{LateRegistration: late}, 5, busted, start.Add(30 * time.Minute), "REENTRY_NOT_ALLOWED", "G-23", ""},
		{"G-23 re-entry limit", event.Running, Policy{LateRegistration: late, Reentry: true, MaxReentries: 1}, 5, bustedTwice, start.Add(30 * time.Minute), "REENTRY_LIMIT_REACHED", "G-23", ""},
		{"G-23 re-entry only while registration is open", event.Running, reentry, 5, busted, start.Add(late), "REGISTRATION_CLOSED", "TR-04", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			en, pay, err := Register(ev(event.Freezeout, tt.status), tt.p, tt.entrants, tt.existing, "ann", "", tt.now)
			wantFault(t, err, tt.reason, tt.rule)
			if err != nil {
				return
			}
			if en.Status != Paying || en.PlayerID != "ann" || !en.RegisteredAt.Equal(tt.now) {
				t.Fatalf("entry = %+v", en)
			}
			if tt.existing != nil && tt.existing.Status == Busted && en.Reentries != tt.existing.Reentries+1 {
				t.Fatalf("re-entry counted %d, want %d", en.Reentries, tt.existing.Reentries+1)
			}
			want := Payment{Key: tt.key, Kind: PayEntry, EventID: "t1", PlayerID: "ann", Currency: "EUR", PrizePart: 5000, Fee: 1100}
			if pay != want {
				t.Fatalf("payment = %+v, want %+v", pay, want)
			}
		})
	}
}

func TestUnregister_TR04(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status Status
		event  event.Status
		now    time.Time
		reason string
	}{
		{"TR-04 before the start", Active, event.Scheduled, start.Add(-time.Minute), ""},
		{"TR-04 after the start", Active, event.Running, start.Add(time.Minute), "UNREGISTER_AFTER_START"},
		{"TR-04 scheduled but start time passed", Active, event.Scheduled, start, "UNREGISTER_AFTER_START"},
		{"payment in flight", Paying, event.Scheduled, start.Add(-time.Minute), "ENTRY_PAYMENT_IN_FLIGHT"},
		{"already unregistered", Unregistered, event.Scheduled, start.Add(-time.Minute), "ENTRY_NOT_ACTIVE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			en := Entry{EventID: "t1", PlayerID: "ann", Status: tt.status, TransferID: "tr-9"}
			refund, entryKey, err := Unregister(ev(event.Freezeout, tt.event), &en, tt.now)
			rule := ""
			if tt.reason == "UNREGISTER_AFTER_START" {
				rule = "TR-04"
			}
			wantFault(t, err, tt.reason, rule)
			if err == nil && (en.Status != Unregistered || en.Withdrawals != 1) {
				t.Fatalf("entry = %+v", en)
			}
			// TR-04: the refund reverses this entry's transfer, prize part and
			// fee, under a key of this entry alone.
			want := Payment{Key: "trn/t1/ann/entry-refund/1", Kind: RefundEntry, EventID: "t1", PlayerID: "ann", Currency: "EUR",
				PrizePart: 5000, Fee: 1100, RefundOf: "tr-9", Note: "entry withdrawn before the start (TR-04)"}
			if err == nil && (refund != want || entryKey != "trn/t1/ann/entry/1") {
				t.Fatalf("refund = %+v, entry key %q; want %+v", refund, entryKey, want)
			}
			if err != nil && en.Status != tt.status {
				t.Fatalf("refused unregistration changed the entry: %+v", en)
			}
		})
	}
}

func TestClaim_TR05(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		presenter string
		forfeit   bool
		reason    string
		after     Status
	}{
		{"TR-05 named player", "ann", false, "", Active},
		{"TR-05 someone else, refused", "bob", false, "ENTRY_NOT_PERSONAL", Active},
		{"TR-05 someone else, forfeited without refund", "bob", true, "ENTRY_NOT_PERSONAL", Forfeited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			en := Entry{PlayerID: "ann", Status: Active}
			err := Claim(&en, tt.presenter, tt.forfeit)
			rule := ""
			if tt.reason != "" {
				rule = "TR-05"
			}
			wantFault(t, err, tt.reason, rule)
			if en.Status != tt.after {
				t.Fatalf("status = %s, want %s", en.Status, tt.after)
			}
		})
	}
}

func TestRebuy(t *testing.T) {
	t.Parallel()
	p := Policy{MaxRebuys: 2}.WithDefaults(ev(event.Rebuy, event.Running))
	tests := []struct {
		name         string
		format       event.Format
		rebuys       int
		table        Table
		reason, rule string
	}{
		{"TR-13 TR-14 inside the period, busted", event.Rebuy, 0, Table{Now: start.Add(30 * time.Minute), Stack: 0}, "", ""},
		{"TR-15 stack below start", event.Rebuy, 0, Table{Now: start.Add(30 * time.Minute), Stack: 9999}, "", ""},
		{"TR-15 stack equal to start", event.Rebuy, 0, Table{Now: start.Add(30 * time.Minute), Stack: 10000}, "REBUY_NOT_ALLOWED", "TR-15"},
		{"TR-15 stack above start", event.Rebuy, 0, Table{Now: start.Add(30 * time.Minute), Stack: 25000}, "REBUY_NOT_ALLOWED", "TR-15"},
		{"TR-16 period over, second of three last hands", event.Rebuy, 0, Table{Now: start.Add(61 * time.Minute), HandsSincePeriodEnd: 2}, "", ""},
		{"TR-16 period over, three last hands played", event.Rebuy, 0, Table{Now: start.Add(61 * time.Minute), HandsSincePeriodEnd: 3}, "REBUY_PERIOD_OVER", "TR-16"},
		{"TR-13 G-42 period over at a table that deals no more hands", event.Rebuy, 0, Table{Now: start.Add(61 * time.Minute), HandsSincePeriodEnd: 1, Idle: true}, "REBUY_PERIOD_OVER", "G-42"},
		{"TR-13 in the period at a table that deals no more hands", event.Rebuy, 0, Table{Now: start.Add(59 * time.Minute), Idle: true}, "", ""},
		{"G-23 rebuy limit", event.Rebuy, 2, Table{Now: start.Add(30 * time.Minute)}, "REBUY_LIMIT_REACHED", "G-23"},
		{"TR-18 freezeout", event.Freezeout, 0, Table{Now: start.Add(30 * time.Minute)}, "REBUY_NOT_ALLOWED", "TR-18"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := ev(tt.format, event.Running)
			pol := p
			if tt.format == event.Freezeout {
				pol = Policy{}.WithDefaults(e)
			}
			en := Entry{EventID: "t1", PlayerID: "ann", Status: Active, Rebuys: tt.rebuys}
			pay, chips, err := Rebuy(e, pol, en, tt.table)
			wantFault(t, err, tt.reason, tt.rule)
			if err != nil {
				return
			}
			want := Payment{Key: "trn/t1/ann/rebuy/1", Kind: PayRebuy, EventID: "t1", PlayerID: "ann", Currency: "EUR", PrizePart: 5000}
			if pay != want || chips != 10000 {
				t.Fatalf("Rebuy = %+v, %d; want %+v, 10000", pay, chips, want)
			}
			en.Settled(pay)
			if en.Rebuys != 1 {
				t.Fatalf("rebuys after settling = %d", en.Rebuys)
			}
		})
	}
}

func TestAddOn_TR17(t *testing.T) {
	t.Parallel()
	p := Policy{AddOn: true}.WithDefaults(ev(event.Rebuy, event.Running))
	after := start.Add(time.Hour + time.Minute)
	tests := []struct {
		name         string
		en           Entry
		table        Table
		withRebuy    bool
		reason, rule string
		keys         []string
		chips        int64
	}{
		{"TR-17 after the last rebuy hand", Entry{Status: Active}, Table{Now: after, HandsSincePeriodEnd: 3, Stack: 15000}, false, "", "", []string{"trn/t1/ann/add-on/1"}, 20000},
		{"TR-17 not during the last rebuy hands", Entry{Status: Active}, Table{Now: after, HandsSincePeriodEnd: 2, Stack: 15000}, false, "ADD_ON_NOT_OPEN", "TR-17", nil, 0},
		{"TR-17 G-42 at a table that deals no more hands", Entry{Status: Active}, Table{Now: after, HandsSincePeriodEnd: 1, Stack: 15000, Idle: true}, false, "", "", []string{"trn/t1/ann/add-on/1"}, 20000},
		{"TR-17 not during the rebuy period", Entry{Status: Active}, Table{Now: start.Add(time.Minute), HandsSincePeriodEnd: 9, Stack: 15000}, false, "ADD_ON_NOT_OPEN", "TR-17", nil, 0},
		{"TR-17 no chips: rebuy first", Entry{Status: Active}, Table{Now: after, HandsSincePeriodEnd: 3}, false, "REBUY_BEFORE_ADD_ON", "TR-17", nil, 0},
		{"TR-17 no chips: rebuy and add-on combined", Entry{Status: Active, Rebuys: 1}, Table{Now: after, HandsSincePeriodEnd: 3}, true, "", "", []string{"trn/t1/ann/rebuy/2", "trn/t1/ann/add-on/1"}, 30000},
		// All in in the hand in play: neither the add-on alone (a loss would
		// skip the rebuy) nor with a rebuy (a win would not need it).
		{"TR-17 all in: after the hand", Entry{Status: Active}, Table{Now: after, HandsSincePeriodEnd: 3, AllIn: true}, false, "ADD_ON_AFTER_HAND", "TR-17", nil, 0},
		{"TR-17 all in: not with a rebuy either", Entry{Status: Active}, Table{Now: after, HandsSincePeriodEnd: 3, AllIn: true}, true, "ADD_ON_AFTER_HAND", "TR-17", nil, 0},
		{"TR-17 only once", Entry{Status: Active, AddOn: true}, Table{Now: after, HandsSincePeriodEnd: 3, Stack: 1}, false, "ADD_ON_TAKEN", "TR-17", nil, 0},
		{"G-23 window closed", Entry{Status: Active}, Table{Now: start.Add(time.Hour + 15*time.Minute), HandsSincePeriodEnd: 3, Stack: 1}, false, "ADD_ON_CLOSED", "G-23", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			en := tt.en
			en.EventID, en.PlayerID = "t1", "ann"
			pays, chips, err := AddOn(ev(event.Rebuy, event.Running), p, en, tt.table, tt.withRebuy)
			wantFault(t, err, tt.reason, tt.rule)
			var keys []string
			for _, pay := range pays {
				keys = append(keys, pay.Key)
				if pay.PrizePart != 5000 || pay.Currency != "EUR" {
					t.Fatalf("payment %+v", pay)
				}
			}
			if strings.Join(keys, ",") != strings.Join(tt.keys, ",") || chips != tt.chips {
				t.Fatalf("AddOn = %v, %d; want %v, %d", keys, chips, tt.keys, tt.chips)
			}
		})
	}
	// Without an add-on in the policy.
	_, _, err := AddOn(ev(event.Rebuy, event.Running), Policy{}.WithDefaults(ev(event.Rebuy, event.Running)), Entry{Status: Active}, Table{Now: after, HandsSincePeriodEnd: 3}, false)
	if !errors.Is(err, ErrNoAddOn) {
		t.Fatalf("AddOn without add-on = %v", err)
	}
}

func TestPaymentKey(t *testing.T) {
	t.Parallel()
	if k := PaymentKey("t1", "ann", PayRebuy, 3); k != "trn/t1/ann/rebuy/3" {
		t.Fatalf("key = %q", k)
	}
	long := PaymentKey(strings.Repeat("e", 64), strings.Repeat("p", 128), PayEntry, 1)
	if len(long) > 128 || !strings.HasPrefix(long, "trn/h/") || long != PaymentKey(strings.Repeat("e", 64), strings.Repeat("p", 128), PayEntry, 1) {
		t.Fatalf("long key = %q", long)
	}
	if c := CancelPayment(ev(event.Rebuy, event.Running), "storm"); c.Key != "trn/t1/refund" || c.Kind != RefundEvent || c.Note != "storm" {
		t.Fatalf("cancel payment %+v", c)
	}
}

func TestLeave_TR35(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		event  event.Status
		en     Entry
		reason string
	}{
		{"TR-35 running: the entry stays, marked left", event.Running, Entry{Status: Active}, ""},
		{"TR-35 twice", event.Running, Entry{Status: Active, Left: true}, "ENTRY_ALREADY_LEFT"},
		{"TR-04 before the start: unregister instead", event.Scheduled, Entry{Status: Active}, "ENTRY_NOT_ACTIVE"},
		{"busted", event.Running, Entry{Status: Busted}, "ENTRY_NOT_ACTIVE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			en := tt.en
			err := Leave(ev(event.Freezeout, tt.event), &en)
			rule := ""
			if tt.reason == "ENTRY_ALREADY_LEFT" {
				rule = "TR-35"
			}
			wantFault(t, err, tt.reason, rule)
			if err == nil && (!en.Left || en.Status != Active) {
				t.Fatalf("entry %+v", en)
			}
		})
	}
}

func TestKnockOut_TR13_TR16(t *testing.T) {
	t.Parallel()
	rebuy := Policy{MaxRebuys: 2}.WithDefaults(ev(event.Rebuy, event.Running))
	tests := []struct {
		name     string
		format   event.Format
		rebuys   int
		table    Table
		declined bool
		reason   string
	}{
		{"TR-18 freezeout: out", event.Freezeout, 0, Table{Now: start.Add(time.Minute)}, false, ""},
		{"TR-13 rebuy period: may still rebuy", event.Rebuy, 0, Table{Now: start.Add(time.Minute)}, false, "REBUY_STILL_OPEN"},
		{"TR-13 declined the rebuy", event.Rebuy, 0, Table{Now: start.Add(time.Minute)}, true, ""},
		{"TR-16 in the last rebuy hands", event.Rebuy, 0, Table{Now: start.Add(2 * time.Hour), HandsSincePeriodEnd: 1}, false, "REBUY_STILL_OPEN"},
		{"TR-16 after the last rebuy hand", event.Rebuy, 0, Table{Now: start.Add(2 * time.Hour), HandsSincePeriodEnd: 3}, false, ""},
		{"G-23 no rebuys left", event.Rebuy, 2, Table{Now: start.Add(time.Minute)}, false, ""},
		{"TR-17 add-on window: may still take a rebuy with the add-on", event.Rebuy, 1, Table{Now: start.Add(65 * time.Minute), HandsSincePeriodEnd: 3}, false, "REBUY_STILL_OPEN"},
		{"TR-17 add-on window over", event.Rebuy, 1, Table{Now: start.Add(75 * time.Minute), HandsSincePeriodEnd: 3}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := ev(tt.format, event.Running)
			p := rebuy
			if strings.HasPrefix(tt.name, "TR-17") {
				p = Policy{MaxRebuys: 2, AddOn: true}.WithDefaults(e)
			}
			if tt.format == event.Freezeout {
				p = Policy{}.WithDefaults(e)
			}
			rule := ""
			if tt.reason != "" {
				rule = "TR-13"
			}
			wantFault(t, KnockOut(e, p, Entry{Status: Active, Rebuys: tt.rebuys}, tt.table, tt.declined), tt.reason, rule)
		})
	}
}
