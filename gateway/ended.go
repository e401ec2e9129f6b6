package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/plughost/plughost/host"
)

// A session that ends while one of its requests runs — DELETE on this or
// another replica, or its idle expiry — gets the answer of a request that
// names an unknown session: HTTP 404, so the client initializes again.
// Never a tool result or a JSON-RPC error saying "session not found",
// which a client takes for the tool's failure and carries on with a dead
// session.

// errSessionNotFound answers a request whose session is unknown, expired
// or ended.
var errSessionNotFound = &rpcError{Code: codeInvalidRequest,
	Message: "session not found (it ended or expired): send initialize without " + sessionHeader + " to start a new one"}

// endedCheckAfter is how long a call must have taken for its session to be
// looked up again afterwards. A session that ended during a call is
// noticed by the first store operation that needs it; a call may have
// none after the server answered, so one that took long enough for a
// client to give up on it is followed by one read of the store — a cost
// that vanishes next to the call's own, where after every call it would
// be one more round trip to Redis on the hot path.
const endedCheckAfter = 100 * time.Millisecond

// endedDuring returns an error wrapping host.ErrSessionNotFound when the
// session of a call that took took ended meanwhile (see endedCheckAfter).
func endedDuring(ctx context.Context, x *exchange, took time.Duration) error {
	if took < endedCheckAfter {
		return nil
	}
	if _, err := x.sess.State(ctx); errors.Is(err, host.ErrSessionNotFound) {
		return err
	}
	return nil
}

// sessionEnded answers 404 like a request naming an unknown session, and
// reports true; false when the answer is an event stream already (its
// status sent), on which the caller then sends errSessionNotFound.
func (s *httpSink) sessionEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streaming {
		return false
	}
	httpError(s.w, http.StatusNotFound, errSessionNotFound)
	return true
}
