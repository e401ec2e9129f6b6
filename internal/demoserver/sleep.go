package demoserver

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxSleepSeconds caps sleep at one hour.
const maxSleepSeconds = 3600

type sleepArgs struct {
	Seconds float64 `json:"seconds"`
}

func sleepTool() server.ServerTool {
	tool := newTool("sleep",
		"Waits for the given number of seconds, then reports how long it waited. Stops early, with an error "+
			"result, when the call is cancelled or times out. Useful for testing timeouts and cancellation.",
		hints("Sleep", true),
		mcp.WithNumber("seconds",
			mcp.Required(),
			mcp.Min(0),
			mcp.Max(maxSleepSeconds),
			mcp.Description("How long to wait, in seconds (fractions allowed, 0 to 3600)."),
		),
	)
	return server.ServerTool{Tool: tool, Handler: mcp.NewTypedToolHandler(sleep)}
}

func sleep(ctx context.Context, _ mcp.CallToolRequest, args sleepArgs) (*mcp.CallToolResult, error) {
	if args.Seconds < 0 || args.Seconds > maxSleepSeconds {
		return mcp.NewToolResultError(fmt.Sprintf("seconds must be between 0 and %d, got %g", maxSleepSeconds, args.Seconds)), nil
	}
	want := time.Duration(args.Seconds * float64(time.Second))
	start := time.Now()
	timer := time.NewTimer(want)
	defer timer.Stop()
	select {
	case <-timer.C:
		return mcp.NewToolResultText(fmt.Sprintf("slept %s", roundDuration(time.Since(start)))), nil
	case <-ctx.Done():
		return mcp.NewToolResultError(fmt.Sprintf("sleep interrupted after %s of %s: %v",
			roundDuration(time.Since(start)), roundDuration(want), ctx.Err())), nil
	}
}

func roundDuration(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
