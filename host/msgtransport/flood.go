package msgtransport

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// FloodLimit bounds what a server sends on its own: its notifications and
// its requests (answers to the host's requests do not count). Within the
// limit messages are read as they come; past it the transport reads them
// no faster than Rate — the server waits on its full pipe or stream, so a
// server writing in a loop costs the host a bounded amount of work — and
// once the server has been over the rate for Grace, the connection ends
// with a *FloodError. Nothing is dropped.
type FloodLimit struct {
	// Rate is how many messages per second the server may send, sustained
	// (0: no limit).
	Rate float64
	// Burst is how many it may send at once beyond the rate (at least 1).
	Burst int
	// Grace is how long the server may stay throttled before the
	// connection ends (0: never; it stays throttled).
	Grace time.Duration
}

// FloodError ends a connection whose server stayed over its FloodLimit for
// longer than the limit's Grace.
type FloodError struct {
	// Limit is the limit the server exceeded.
	Limit FloodLimit
}

// Error implements error.
func (e *FloodError) Error() string {
	return fmt.Sprintf("disconnected for flooding: the server sent more than %s notifications and requests per second for %s",
		rateText(e.Limit.Rate), e.Limit.Grace)
}

// rateText writes a rate without a needless fraction.
func rateText(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// minThrottleWait is the shortest wait of a throttled read loop: messages
// are let through in batches of this much of the rate, not one wakeup per
// message.
const minThrottleWait = 20 * time.Millisecond

// throttleQuiet ends a throttle episode: once no message had to wait for
// this long, the server is within its limit again.
const throttleQuiet = time.Second

// floodMeter is a token bucket over a server's own messages that also
// times throttle episodes. It is used by the read loop only; Endpoint
// copies what others read under its lock.
type floodMeter struct {
	limit    FloodLimit
	tokens   float64
	last     time.Time // of the last refill; zero: the bucket is full
	since    time.Time // start of the current throttle episode; zero: none
	lastWait time.Time // when the last message that waited was let through
}

func newFloodMeter(l FloodLimit) *floodMeter {
	l.Burst = max(l.Burst, 1)
	return &floodMeter{limit: l, tokens: float64(l.Burst)}
}

// capacity is the most tokens the bucket holds: the burst, and at least a
// minimal wait's worth of the rate, so that a wait lets a batch through.
func (m *floodMeter) capacity() float64 {
	return max(float64(m.limit.Burst), m.limit.Rate*minThrottleWait.Seconds())
}

// take accounts for one message arriving at now. It returns how long the
// reader must wait before handling it, whether that wait begins a throttle
// episode, and whether the server has now been throttled for longer than
// Grace.
func (m *floodMeter) take(now time.Time) (wait time.Duration, started, flood bool) {
	if !m.last.IsZero() {
		m.tokens = min(m.capacity(), m.tokens+m.limit.Rate*now.Sub(m.last).Seconds())
	}
	m.last = now
	if !m.since.IsZero() && now.Sub(m.lastWait) >= throttleQuiet {
		m.since = time.Time{}
	}
	m.tokens--
	if m.tokens >= 0 {
		return 0, false, false
	}
	wait = max(time.Duration(-m.tokens/m.limit.Rate*float64(time.Second)), minThrottleWait)
	if m.since.IsZero() {
		m.since, started = now, true
	}
	m.lastWait = now.Add(wait)
	return wait, started, m.limit.Grace > 0 && m.lastWait.Sub(m.since) >= m.limit.Grace
}

// throttledSince returns the start of the throttle episode at now, if one
// is under way.
func (m *floodMeter) throttledSince(now time.Time) (time.Time, bool) {
	if m.since.IsZero() || now.Sub(m.lastWait) >= throttleQuiet {
		return time.Time{}, false
	}
	return m.since, true
}

// SetFloodLimit bounds the messages the server sends on its own (see
// FloodLimit). onThrottle, when not nil, is called (off the read loop) each
// time a throttle episode begins; Throttled tells when it has ended. Call
// it before Start.
func (t *Endpoint) SetFloodLimit(l FloodLimit, onThrottle func()) {
	if l.Rate <= 0 {
		return
	}
	t.mu.Lock()
	t.flood = newFloodMeter(l)
	t.onThrottle = onThrottle
	t.mu.Unlock()
}

// Throttled reports whether the server is being read at its flood limit's
// rate, and since when.
func (t *Endpoint) Throttled() (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.flood == nil {
		return time.Time{}, false
	}
	return t.flood.throttledSince(time.Now())
}

// meter applies the flood limit to one message the server sent on its
// own: it waits while the server is over the rate, and returns a
// *FloodError once it has been for longer than the grace period (or the
// transport's context error when it is closed meanwhile).
func (t *Endpoint) meter() error {
	t.mu.Lock()
	if t.flood == nil {
		t.mu.Unlock()
		return nil
	}
	wait, started, flood := t.flood.take(time.Now())
	limit, onThrottle := t.flood.limit, t.onThrottle
	t.mu.Unlock()
	if flood {
		return &FloodError{Limit: limit}
	}
	if started && onThrottle != nil {
		go onThrottle()
	}
	if wait <= 0 {
		return nil
	}
	return sleepCtx(t.ctx, wait)
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
