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

// watchThrottle updates the status when a throttle episode of conn begins
// (throttled, from the transport's callback) and, polling the transport
// every second meanwhile, when it ends. It returns the ticker's channel to
// select on, nil when no episode is under way.
func (s *Server) watchThrottle(conn *connection, ticker **time.Ticker) <-chan time.Time {
	since, on := conn.transport.Throttled()
	switch {
	case on && *ticker == nil:
		*ticker = time.NewTicker(throttlePoll)
		msg := throttleText(s.spec.floodLimit(), since)
		s.logger.Warn("server is flooding; reading it at the limit's rate", "limit", rate(s.spec.floodLimit().Rate)+"/s")
		s.update(func(st *Status) { st.Throttle = msg })
	case !on && *ticker != nil:
		(*ticker).Stop()
		*ticker = nil
		s.logger.Info("server is within its notification rate again")
		s.update(func(st *Status) { st.Throttle = "" })
	}
	if *ticker == nil {
		return nil
	}
	return (*ticker).C
}

// throttlePoll is how often a throttled server's transport is asked
// whether the episode has ended.
const throttlePoll = time.Second
