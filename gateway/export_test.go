package gateway

// StreamAttached reports whether a stream of session is attached here (its
// GET stream is open), for tests that need messages outside a request to
// reach the client.
func (g *Gateway) StreamAttached(session string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.streams[session]) > 0
}

// EndedCheckAfter is how long a call must take for its session to be
// looked up again after it (endedCheckAfter).
const EndedCheckAfter = endedCheckAfter
