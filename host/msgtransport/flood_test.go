package msgtransport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// floodConn is a server that sends notifications without end: every Recv
// waits gap (the server's pace), then returns one, until it is closed. The tests run in a
// synctest bubble, so the waits, the transport's throttle waits and its
// flood meter all run on the bubble's fake clock.
type floodConn struct {
	gap    func(n int64) time.Duration
	n      atomic.Int64
	closed chan struct{}
	once   sync.Once
}

func (c *floodConn) Send(context.Context, json.RawMessage) error { return nil }

func (c *floodConn) Recv(context.Context) (json.RawMessage, error) {
	select {
	case <-c.closed:
		return nil, io.EOF
	case <-time.After(c.gap(c.n.Add(1))):
	}
	return json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`), nil
}

func (c *floodConn) SessionID() string { return "" }

func (c *floodConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// floodTransport starts a transport over a floodConn; it counts the
// notifications handled and the throttle episodes begun. Call it inside a
// synctest bubble.
func floodTransport(t *testing.T, l FloodLimit, gap func(int64) time.Duration) (*Endpoint, *atomic.Int64, *atomic.Int64) {
	t.Helper()
	conn := &floodConn{gap: gap, closed: make(chan struct{})}
	tr := New(conn, nil)
	var handled, episodes atomic.Int64
	tr.SetFloodLimit(l, func() { episodes.Add(1) })
	tr.SetRawHandlers(RawHandlers{Notification: func(string, json.RawMessage) { handled.Add(1) }})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr, &handled, &episodes
}

// A server writing notifications as fast as it can is read at the limit's
// rate, and once it has been over the rate for the grace period the
// connection ends with a FloodError. Before the limit existed every
// message was read at once, without end.
func TestFloodLimitThrottlesThenDisconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := FloodLimit{Rate: 100, Burst: 10, Grace: 5 * time.Second}
		start := time.Now()
		tr, handled, episodes := floodTransport(t, l, func(int64) time.Duration { return 0 })
		within(t, tr.Done(), "the flood to end the connection")
		var fe *FloodError
		if err := tr.Err(); !errors.As(err, &fe) || fe.Limit != l {
			t.Fatalf("connection ended with %v; want a *FloodError with the limit", err)
		}
		if msg := tr.Err().Error(); !strings.Contains(msg, "more than 100 notifications and requests per second for 5s") {
			t.Errorf("error %q does not name the rate and the grace period", msg)
		}
		// The burst at once, then the rate for the grace period: the read loop
		// let through at most burst + rate × grace messages, over ≈ grace.
		elapsed := time.Since(start)
		if elapsed < l.Grace-minThrottleWait || elapsed > l.Grace {
			t.Errorf("throttled for %s of the fake clock; want ≈ %s", elapsed, l.Grace)
		}
		synctest.Wait() // the dispatcher handled all it queued, the episode callback ran
		want := int64(l.Burst) + int64(l.Rate*l.Grace.Seconds())
		if n := handled.Load(); n < want-int64(l.Rate*minThrottleWait.Seconds()) || n > want {
			t.Errorf("%d notifications handled; want ≈ %d (burst + rate × grace)", n, want)
		}
		if n := episodes.Load(); n != 1 {
			t.Errorf("%d throttle episodes reported; want 1", n)
		}
	})
}

// A server within the rate is never throttled.
func TestFloodLimitWithinTheRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := FloodLimit{Rate: 100, Burst: 10, Grace: time.Second}
		const n, gap = 5000, 11 * time.Millisecond // ≈ 91 per second
		tr, handled, episodes := floodTransport(t, l, func(i int64) time.Duration {
			if i > n {
				return time.Hour
			}
			return gap
		})
		time.Sleep(n*gap + time.Second) // the server's n notifications at its pace
		synctest.Wait()
		select {
		case <-tr.Done():
			t.Fatalf("connection ended after %d notifications: %v", handled.Load(), tr.Err())
		default:
		}
		if got := handled.Load(); got != n {
			t.Errorf("%d notifications handled; want all %d", got, n)
		}
		if _, on := tr.Throttled(); on || episodes.Load() != 0 {
			t.Errorf("throttled %v, %d episodes; want none for a server within the rate", on, episodes.Load())
		}
	})
}

// Bursts over the rate separated by quiet periods are throttled episode by
// episode; none lasts the grace period, so the connection stays.
func TestFloodLimitEpisodesEndWhenQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := FloodLimit{Rate: 100, Burst: 10, Grace: 2 * time.Second}
		const perBurst, bursts, quiet = 50, 20, 3 * time.Second // quiet long enough to end the episode and refill
		tr, handled, episodes := floodTransport(t, l, func(i int64) time.Duration {
			switch {
			case i > perBurst*bursts:
				return time.Hour
			case i%perBurst == 0:
				return quiet
			}
			return 0
		})
		time.Sleep(bursts * (quiet + l.Grace)) // every burst, its throttle and the quiet after it
		synctest.Wait()
		select {
		case <-tr.Done():
			t.Fatalf("connection ended after %d notifications: %v", handled.Load(), tr.Err())
		default:
		}
		if got := handled.Load(); got != perBurst*bursts {
			t.Errorf("%d notifications handled; want all %d", got, perBurst*bursts)
		}
		if n := episodes.Load(); n != bursts {
			t.Errorf("%d throttle episodes; want %d, one per burst", n, bursts)
		}
	})
}

func TestFloodMeter(t *testing.T) {
	t0 := time.Unix(0, 0)
	m := newFloodMeter(FloodLimit{Rate: 10, Burst: 2, Grace: time.Second})
	steps := []struct {
		at      time.Duration
		wait    time.Duration
		started bool
		flood   bool
	}{
		{0, 0, false, false},
		{0, 0, false, false},
		{0, 100 * time.Millisecond, true, false}, // the burst is spent: one token's time
		{0, 200 * time.Millisecond, false, false},
		{300 * time.Millisecond, 0, false, false}, // waited out: the tokens came
		{300 * time.Millisecond, 100 * time.Millisecond, false, false},
		{1000 * time.Millisecond, 0, false, false},                     // 0.6 s later: 6 tokens, capped at 2
		{1000 * time.Millisecond, 0, false, false},                     //
		{1000 * time.Millisecond, 100 * time.Millisecond, false, true}, // still in the episode begun at 0: 1.1 s ≥ grace
	}
	for i, s := range steps {
		wait, started, flood := m.take(t0.Add(s.at))
		if wait != s.wait || started != s.started || flood != s.flood {
			t.Errorf("step %d at %s: take = %s, %v, %v; want %s, %v, %v", i, s.at, wait, started, flood, s.wait, s.started, s.flood)
		}
	}
	if _, on := m.throttledSince(t0.Add(1100 * time.Millisecond)); !on {
		t.Errorf("not throttled right after a wait")
	}
	if _, on := m.throttledSince(t0.Add(1100*time.Millisecond + throttleQuiet)); on {
		t.Errorf("still throttled after %s without a wait", throttleQuiet)
	}
}

// A throttled read loop waits at least minThrottleWait and lets the
// messages that rate covers through at once: a wakeup per batch, not per
// message.
func TestFloodMeterBatchesWaits(t *testing.T) {
	t0 := time.Unix(0, 0)
	m := newFloodMeter(FloodLimit{Rate: 1000, Burst: 1})
	if wait, _, _ := m.take(t0); wait != 0 {
		t.Fatalf("first message waits %s; want 0 (the burst)", wait)
	}
	wait, _, _ := m.take(t0)
	if wait != minThrottleWait {
		t.Fatalf("second message waits %s; want %s", wait, minThrottleWait)
	}
	at := t0.Add(wait)
	passed := 0
	for {
		if w, _, _ := m.take(at); w > 0 {
			break
		}
		passed++
	}
	if want := int(1000*minThrottleWait.Seconds()) - 1; passed != want {
		t.Errorf("%d messages passed after the wait; want %d (the wait's worth of the rate)", passed, want)
	}
}
