package routing

import (
	"context"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// A server's log-level turn is kept only while an applyLevel holds or waits
// for it, and removing the server while a turn is held does not let a
// second turn of that name start: a server added again under the name
// waits for the turn of its old self.
func TestLevelTurnHeldAcrossRemoval(t *testing.T) {
	r := New(nil, hclog.NewNullLogger()) // turns and forgetting ask nothing of the servers
	release, ok := r.takeLevelTurn(context.Background(), "x")
	if !ok {
		t.Fatal("no turn for an idle server")
	}
	r.ForgetServer("x") // what a reload removing x does
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for range 50 {
		if again, ok := r.takeLevelTurn(cancelled, "x"); ok {
			again()
			t.Fatal("a second turn of x started while the first was held")
		}
	}
	second := make(chan func())
	go func() {
		next, ok := r.takeLevelTurn(context.Background(), "x")
		if !ok {
			t.Error("the waiting turn was refused")
		}
		second <- next
	}()
	release()
	(<-second)()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.levelTurns) != 0 {
		t.Errorf("turns kept once nobody holds or waits for them: %v", r.levelTurns)
	}
}
