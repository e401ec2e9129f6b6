package shaping

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Timeout bounds each call, result shaping included, by limit(call); a
// limit of 0 or less leaves that call unbounded, and a nil limit disables
// the link. The inner links see the deadline in their context (the server
// is told to cancel; an artifact write stops). A call that fails because
// the deadline passed gets an error naming the limit.
func Timeout(limit func(Call) time.Duration) Middleware {
	if limit == nil {
		return func(next Handler) Handler { return next }
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, call Call) (Result, error) {
			d := limit(call)
			if d <= 0 {
				return next(ctx, call)
			}
			tctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			res, err := next(tctx, call)
			if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
				return Result{}, fmt.Errorf("tool %q: no complete result within %s: %w", call.Name, d, err)
			}
			return res, err
		}
	}
}
