package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/plughost/plughost/host/routing"
)

// SetLogLevel answers logging/setLevel: the session gets the servers' log
// messages at level and above. Every server of the session's scope that
// offers logging is set to the most verbose level any session asked for
// (the connection is shared); each session still gets only what it asked
// for. A server that fails is logged and skipped. The level is kept in the
// session's record, so replicas sharing the store apply it too
// (AdoptLogLevel).
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	if !routing.IsLogLevel(level) {
		return &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf("logging/setLevel: unknown level %q; use one of %v", level, routing.LogLevels())}
	}
	scope, err := s.scopeOf(ctx)
	if err != nil {
		return err
	}
	if err := s.recordLogLevel(ctx, level); err != nil {
		return fmt.Errorf("logging/setLevel: %w", err)
	}
	return s.applyLogLevel(ctx, scope, level)
}

// applyLogLevel applies the session's level in this process: the router's
// filter, the shared connections' level, and the session's own connections.
func (s *Session) applyLogLevel(ctx context.Context, scope, level string) error {
	s.h.router.SetLevel(ctx, s.id, scope, level)
	for _, name := range s.h.st().order {
		if srv := s.h.ownConn(s.id, name); srv != nil && (scope == "" || scope == name) {
			if _, err := srv.Request(ctx, "logging/setLevel", json.RawMessage(`{"level":`+strconv.Quote(level)+`}`)); err != nil {
				s.h.logger.Warn("setting the log level of a session connection failed", "server", name, "error", err)
			}
		}
	}
	return nil
}
