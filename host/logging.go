package host

import (
	"context"
	"fmt"

	"github.com/plughost/plughost/host/routing"
)

// SetLogLevel answers logging/setLevel: the session gets the servers' log
// messages at level and above. Every server of the session's scope that
// offers logging is set to the most verbose level any session asked for
// (the connection is shared); each session still gets only what it asked
// for. A server that fails is logged and skipped.
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	if !routing.IsLogLevel(level) {
		return &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf("logging/setLevel: unknown level %q; use one of %v", level, routing.LogLevels())}
	}
	scope, err := s.scopeOf(ctx)
	if err != nil {
		return err
	}
	s.h.router.SetLevel(ctx, s.id, scope, level)
	return nil
}
