package supervisor

import (
	"fmt"
	"strconv"
	"time"

	"github.com/plughost/plughost/host/msgtransport"
)

// FloodLimit bounds the notifications and requests a server sends on its
// own (msgtransport.FloodLimit): past Rate per second they are read at
// that rate — the server waits, the host's work stays bounded — and a
// server over the rate for Grace is disconnected as flooding and
// restarted with backoff.
type FloodLimit = msgtransport.FloodLimit

// FloodError is why a connection ended when its server flooded.
type FloodError = msgtransport.FloodError

// DefaultFloodLimit is the limit of a Spec that sets none: 1,000 messages
// a second sustained, 2,000 at once, disconnected after 10 s over it. No
// server needs more to report progress or logs; reading at that rate costs
// the host a few percent of a core.
var DefaultFloodLimit = FloodLimit{Rate: 1000, Burst: 2000, Grace: 10 * time.Second}

// floodLimit returns the spec's limit, or the default.
func (s Spec) floodLimit() FloodLimit {
	if s.Flood.Rate <= 0 {
		return DefaultFloodLimit
	}
	return s.Flood
}

// throttleText says what a throttled server's status shows.
func throttleText(l FloodLimit, since time.Time) string {
	s := fmt.Sprintf("throttled since %s: the server sends more than %s notifications and requests per second; they are read at that rate",
		since.Format(time.TimeOnly), rate(l.Rate))
	if l.Grace > 0 {
		s += fmt.Sprintf(" (disconnected if it lasts %s)", l.Grace)
	}
	return s
}

func rate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// throttleWatch keeps a connection's throttle episodes in the server's
// status: check sets Status.Throttle when the transport says an episode
// began, and clears it once the transport says it ended, polling it every
// throttlePoll meanwhile. It is used by the goroutine serving conn.
type throttleWatch struct {
	s      *Server
	conn   *connection
	ticker *time.Ticker // while an episode is under way
}

// check brings the status in line with the transport.
func (w *throttleWatch) check() {
	since, on := w.conn.transport.Throttled()
	limit := w.s.spec.floodLimit()
	switch {
	case on && w.ticker == nil:
		w.ticker = time.NewTicker(throttlePoll)
		msg := throttleText(limit, since)
		w.s.logger.Warn("server is flooding; reading it at the limit's rate", "limit", rate(limit.Rate)+"/s")
		w.s.update(func(st *Status) { st.Throttle = msg })
	case !on && w.ticker != nil:
		w.stop()
		w.s.logger.Info("server is within its notification rate again")
		w.s.update(func(st *Status) { st.Throttle = "" })
	}
}

// poll is the channel to wait on for the next check (nil, which never
// fires, when no episode is under way).
func (w *throttleWatch) poll() <-chan time.Time {
	if w.ticker == nil {
		return nil
	}
	return w.ticker.C
}

// stop ends the polling.
func (w *throttleWatch) stop() {
	if w.ticker != nil {
		w.ticker.Stop()
		w.ticker = nil
	}
}

// throttlePoll is how often a throttled server's transport is asked
// whether the episode has ended.
const throttlePoll = time.Second
