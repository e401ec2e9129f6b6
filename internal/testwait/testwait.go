// Package testwait lets a test wait for something that happens
// asynchronously: it polls a condition until it holds or a bound passes,
// instead of sleeping a fixed time and hoping.
//
// The poll starts at a millisecond and backs off to 50 ms, so a condition
// that holds soon is seen soon and a slow one costs little CPU. Inside a
// testing/synctest bubble the waits run on the bubble's fake clock.
package testwait

import (
	"testing"
	"time"
)

// Until polls cond until it returns true or within has passed, and reports
// whether it did. cond is called once more at the bound, so a condition that
// became true during the last pause is not missed.
func Until(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for !cond() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 50*time.Millisecond)
	}
	return true
}

// Eventually fails t, saying what it waited for, unless cond returns true
// within the bound.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(within, cond) {
		t.Fatalf("timed out after %v waiting for %s", within, what)
	}
}
