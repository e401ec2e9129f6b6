package shaping

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/hashicorp/go-hclog"
)

// Recover turns a panic in the links inside it into an error for this call
// alone, logged with its stack, so one bad result never takes the host down.
// A nil logger discards the log.
func Recover(logger hclog.Logger) Middleware {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, call Call) (res Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					logger.Error("panic while handling a tool call", "tool", call.Name, "server", call.Server,
						"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
					res, err = Result{}, fmt.Errorf("tool %q: internal error in plughost while handling the call "+
						"(a bug, logged with its stack; the server is unaffected): %v", call.Name, v)
				}
			}()
			return next(ctx, call)
		}
	}
}
