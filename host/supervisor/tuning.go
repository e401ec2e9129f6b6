package supervisor

// Tuning is what of a server's settings changes without a restart: the
// phase timeouts (each applies from the next phase or call on) and the
// restart pacing (from the next failure on).
type Tuning struct {
	Timeouts Timeouts
	Backoff  Backoff
}

// SetTuning replaces the server's timeouts and restart pacing; the
// connection, if any, is kept.
func (s *Server) SetTuning(t Tuning) {
	s.mu.Lock()
	s.spec.Timeouts, s.spec.Backoff = t.Timeouts, t.Backoff
	s.mu.Unlock()
}

// tuning returns the current timeouts and restart pacing.
func (s *Server) tuning() Tuning {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Tuning{Timeouts: s.spec.Timeouts, Backoff: s.spec.Backoff}
}
