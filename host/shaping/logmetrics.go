package shaping

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Metrics counts what the chain did. It is safe for concurrent use; the
// zero value is ready.
type Metrics struct {
	calls, failed, toolErrors, truncated, saved, spilled, unsaved atomic.Int64
}

// MetricsSnapshot is a copy of the counters at one moment.
type MetricsSnapshot struct {
	// Calls is the number of calls that went through the chain.
	Calls int64 `json:"calls"`
	// Failed is the number of calls that ended in an error.
	Failed int64 `json:"failed"`
	// ToolErrors is the number of results with isError set.
	ToolErrors int64 `json:"tool_errors"`
	// Truncated is the number of results whose text was bounded.
	Truncated int64 `json:"truncated"`
	// Saved is the number of payloads saved under .artifacts/mcp.
	Saved int64 `json:"saved"`
	// Spilled is the number of payloads saved under .artifacts/tool instead.
	Spilled int64 `json:"spilled"`
	// Unsaved is the number of payloads that could not be saved at all.
	Unsaved int64 `json:"unsaved"`
}

// Snapshot returns the current counts.
func (m *Metrics) Snapshot() MetricsSnapshot {
	return MetricsSnapshot{
		Calls: m.calls.Load(), Failed: m.failed.Load(), ToolErrors: m.toolErrors.Load(),
		Truncated: m.truncated.Load(), Saved: m.saved.Load(), Spilled: m.spilled.Load(), Unsaved: m.unsaved.Load(),
	}
}

// LogMetrics logs each call at debug level (duration, whether its text was
// truncated, where its payload went) and a warning when a payload could not
// be saved, and counts calls in m. Arguments and result text are never
// logged: they may hold secrets. A nil logger discards logs; a nil m counts
// nothing.
func LogMetrics(logger hclog.Logger, m *Metrics) Middleware {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if m == nil {
		m = &Metrics{}
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, call Call) (Result, error) {
			start := time.Now()
			res, err := next(ctx, call)
			rec := call.record()
			m.observe(err == nil && res.IsError, err, rec)
			unsaved := err == nil && rec.path == "" && len(rec.saveErrs) > 0
			if !unsaved && !logger.IsDebug() {
				return res, err // nothing to log: spare building the fields
			}
			fields := []any{"tool", call.Name, "server", call.Server, "duration", time.Since(start)}
			switch {
			case err != nil:
				logger.Debug("tool call failed", append(fields, "error", err)...)
			case unsaved:
				logger.Warn("tool result could not be saved", append(fields, "reason", reference(rec))...)
			default:
				logger.Debug("tool call", append(fields, "is_error", res.IsError,
					"truncated", rec.truncated, "omitted_chars", rec.omitted, "artifact", rec.path)...)
			}
			return res, err
		}
	}
}

// observe counts one call: failed with err, or a result that is a tool's
// own failure (isError).
func (m *Metrics) observe(isError bool, err error, rec *record) {
	m.calls.Add(1)
	if err != nil {
		m.failed.Add(1)
		return
	}
	if isError {
		m.toolErrors.Add(1)
	}
	if rec.truncated {
		m.truncated.Add(1)
	}
	switch {
	case rec.kind == KindMCP:
		m.saved.Add(1)
	case rec.kind == KindTool:
		m.spilled.Add(1)
	case len(rec.saveErrs) > 0:
		m.unsaved.Add(1)
	}
}
