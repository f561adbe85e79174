package clock

import (
	"testing"
	"time"
)

func TestFakeFiresInOrderOnAdvance(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	f := NewFake(start)
	var got []string
	f.AfterFunc(2*time.Minute, func() { got = append(got, "b") })
	f.AfterFunc(time.Minute, func() { got = append(got, "a") })
	stopped := f.AfterFunc(90*time.Second, func() { got = append(got, "never") })
	if !stopped.Stop() {
		t.Fatal("Stop on pending timer = false")
	}
	ch := f.After(3 * time.Minute)

	f.Advance(119 * time.Second)
	if len(got) != 1 || got[0] != "a" {
		t.Fatalf("after 119s fired %v", got)
	}
	f.Advance(time.Second)
	if len(got) != 2 || got[1] != "b" {
		t.Fatalf("after 120s fired %v", got)
	}
	select {
	case <-ch:
		t.Fatal("After fired early")
	default:
	}
	f.Advance(time.Minute)
	select {
	case at := <-ch:
		if !at.Equal(start.Add(3 * time.Minute)) {
			t.Fatalf("After delivered %v", at)
		}
	default:
		t.Fatal("After did not fire")
	}
	if f.Pending() != 0 {
		t.Fatalf("pending = %d", f.Pending())
	}
	if !f.Now().Equal(start.Add(3 * time.Minute)) {
		t.Fatalf("Now = %v", f.Now())
	}
}
