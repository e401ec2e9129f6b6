package shaping

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// waitForCtx is a final handler that blocks until its context ends.
func waitForCtx(ctx context.Context, _ Call) (Result, error) {
	<-ctx.Done()
	return Result{}, ctx.Err()
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		name     string
		limit    func(Call) time.Duration
		next     Handler
		wantErr  string
		wantDead bool // the inner context had a deadline
	}{
		{name: "nil limit disables", limit: nil, next: returning(textResult("ok"), nil)},
		{name: "zero limit leaves the call unbounded", limit: func(Call) time.Duration { return 0 }, next: returning(textResult("ok"), nil)},
		{name: "fast call passes", limit: func(Call) time.Duration { return time.Minute }, next: returning(textResult("ok"), nil), wantDead: true},
		{
			name: "slow call gets an error naming the limit", limit: func(Call) time.Duration { return 20 * time.Millisecond },
			next: waitForCtx, wantErr: `tool "mcp_srv_big": no complete result within 20ms: context deadline exceeded`, wantDead: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sawDeadline bool
			next := func(ctx context.Context, c Call) (Result, error) {
				_, sawDeadline = ctx.Deadline()
				return tt.next(ctx, c)
			}
			res, err := Timeout(tt.limit)(next)(context.Background(), testCall)
			if sawDeadline != tt.wantDead {
				t.Errorf("inner deadline = %v, want %v", sawDeadline, tt.wantDead)
			}
			if tt.wantErr == "" {
				if err != nil || res.Content == nil {
					t.Fatalf("got %v, %v", res, err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestTimeoutCallerCancelIsNotATimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Timeout(func(Call) time.Duration { return time.Minute })(waitForCtx)(ctx, testCall)
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "no complete result") {
		t.Errorf("err = %v, want the caller's cancellation unchanged", err)
	}
}
