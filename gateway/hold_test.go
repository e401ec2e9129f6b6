package gateway

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// bareGateway is a Gateway with only what its streams need, on a clock the
// test moves.
func bareGateway(now *time.Time) *Gateway {
	return &Gateway{logger: hclog.NewNullLogger(), streams: map[string][]*stream{}, now: func() time.Time { return *now }}
}

func queued(st *stream) []string {
	var out []string
	for {
		select {
		case m := <-st.queue:
			out = append(out, string(m))
		default:
			return out
		}
	}
}

// A message for a session whose client has not opened its GET stream yet
// (progress a server wrote after its answer, right after initialize) goes
// out on the stream once it opens, in order; another session's stays held.
func TestMessagesWaitForTheSessionsStream(t *testing.T) {
	now := time.Unix(1000, 0)
	g := bareGateway(&now)
	streamChannel{g, "a"}.send([]byte("a1"))
	streamChannel{g, "b"}.send([]byte("b1"))
	streamChannel{g, "a"}.send([]byte("a2"))
	st := g.attach("a")
	if got := fmt.Sprint(queued(st)); got != "[a1 a2]" {
		t.Fatalf("stream of a got %s, want [a1 a2]", got)
	}
	streamChannel{g, "a"}.send([]byte("a3")) // now straight to the stream
	if got := fmt.Sprint(queued(st)); got != "[a3]" {
		t.Fatalf("after attach: %s, want [a3]", got)
	}
	if len(g.held) != 1 || string(g.held[0].msg) != "b1" || g.heldBytes != 2 {
		t.Fatalf("held %+v (%d bytes), want b1 alone", g.held, g.heldBytes)
	}
	g.endStreams("b") // the session ended: nothing is kept for it
	if len(g.held) != 0 || g.heldBytes != 0 {
		t.Fatalf("held after b ended: %+v (%d bytes)", g.held, g.heldBytes)
	}
}

// Held messages are bounded: by age, by count and by bytes, oldest first.
func TestHeldMessagesAreBounded(t *testing.T) {
	now := time.Unix(1000, 0)
	g := bareGateway(&now)
	streamChannel{g, "old"}.send([]byte("x"))
	now = now.Add(holdFor + time.Second)
	if st := g.attach("old"); len(queued(st)) != 0 {
		t.Fatal("a message held longer than holdFor was delivered")
	}
	for i := range holdCount + 10 {
		streamChannel{g, "many"}.send(fmt.Appendf(nil, "%d", i))
	}
	if len(g.held) != holdCount || string(g.held[0].msg) != "10" {
		t.Fatalf("held %d messages starting at %s, want the newest %d", len(g.held), g.held[0].msg, holdCount)
	}
	g.endStreams("")
	big := make([]byte, holdBytes/3+1)
	for range 3 {
		streamChannel{g, "big"}.send(big)
	}
	if len(g.held) != 2 || g.heldBytes != 2*len(big) {
		t.Fatalf("held %d messages of %d bytes, want 2 under holdBytes", len(g.held), g.heldBytes)
	}
	streamChannel{g, "huge"}.send(make([]byte, holdBytes+1))
	if len(g.held) != 2 {
		t.Fatalf("a message over holdBytes was held")
	}
}
