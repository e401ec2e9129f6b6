package supervisor

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Under a flood (a change announced right after every re-list) the waits
// grow to the cap; after a quiet period the next change is served at once.
func TestRelistPacer(t *testing.T) {
	p := newRelistPacer(RelistPacing{MinGap: 100 * time.Millisecond, MaxGap: time.Second})
	now := time.Unix(1_000_000, 0)
	var waits []time.Duration
	for range 8 {
		d := p.wait(now)
		waits = append(waits, d)
		now = now.Add(d)
		p.done(now)
	}
	ms := time.Millisecond
	want := []time.Duration{0, 100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second, time.Second}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits under a flood (-want +got):\n%s", diff)
	}
	// A change half-way through the gap waits for the rest of it.
	if d := p.wait(now.Add(400 * ms)); d != 600*ms {
		t.Errorf("wait 400 ms after a re-list: %v, want 600ms", d)
	}
	// Quiet for twice the gap: served at once, and the gap starts over.
	now = now.Add(2 * time.Second)
	if d := p.wait(now); d != 0 {
		t.Errorf("wait after a quiet period: %v, want 0", d)
	}
	p.done(now)
	if d := p.wait(now); d != 100*ms {
		t.Errorf("wait after the restart: %v, want 100ms", d)
	}
}

func TestRelistPacingDefaults(t *testing.T) {
	got := RelistPacing{MinGap: 3 * time.Second, MaxGap: time.Second}.withDefaults()
	if got.MaxGap != 3*time.Second {
		t.Errorf("max below min not raised: %+v", got)
	}
	if d := (RelistPacing{}).withDefaults(); d.MinGap != DefaultRelistMinGap || d.MaxGap != DefaultRelistMaxGap {
		t.Errorf("defaults: %+v", d)
	}
}
