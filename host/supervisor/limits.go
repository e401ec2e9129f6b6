package supervisor

// Limits are the settings of a server that change without a restart: the
// phase timeouts (each applies from the next phase or call on) and the
// restart pacing (from the next failure on).
type Limits struct {
	Timeouts Timeouts
	Backoff  Backoff
}

// SetLimits replaces the server's timeouts and restart pacing; the
// connection, if any, is kept.
func (s *Server) SetLimits(l Limits) {
	s.mu.Lock()
	s.spec.Timeouts, s.spec.Backoff = l.Timeouts, l.Backoff
	s.mu.Unlock()
}

// limits returns the current timeouts and restart pacing.
func (s *Server) limits() Limits {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Limits{Timeouts: s.spec.Timeouts, Backoff: s.spec.Backoff}
}
