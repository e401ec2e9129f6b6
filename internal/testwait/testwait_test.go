package testwait

import (
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestUntilSeesALateCondition(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done atomic.Bool
		time.AfterFunc(time.Second, func() { done.Store(true) })
		start := time.Now()
		if !Until(5*time.Second, done.Load) {
			t.Fatal("Until gave up on a condition that held after 1s of 5s")
		}
		if waited := time.Since(start); waited < time.Second || waited > time.Second+50*time.Millisecond {
			t.Errorf("Until returned after %v, want within a poll of 1s", waited)
		}
	})
}

func TestUntilGivesUpAtTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if Until(2*time.Second, func() bool { return false }) {
			t.Fatal("Until reported a condition that never held")
		}
		if waited := time.Since(start); waited != 2*time.Second {
			t.Errorf("Until gave up after %v, want exactly the bound of 2s", waited)
		}
	})
}

func TestUntilDoesNotWaitForATrueCondition(t *testing.T) {
	calls := 0
	if !Until(time.Hour, func() bool { calls++; return true }) || calls != 1 {
		t.Errorf("Until called a true condition %d times, want 1", calls)
	}
}

// fatalRecorder is a testing.TB whose Fatalf only records its message.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.msg = fmt.Sprintf(format, args...) }

func TestEventuallySaysWhatItWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r fatalRecorder
		Eventually(&r, time.Second, "the sky to fall", func() bool { return false })
		if r.msg != "timed out after 1s waiting for the sky to fall" {
			t.Errorf("Eventually failed with %q", r.msg)
		}
	})
}
