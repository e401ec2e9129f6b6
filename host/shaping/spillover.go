package shaping

import (
	"context"
	"fmt"

	"github.com/plughost/plughost/host/callresult"
)

// Spillover is Artifact's fallback: when saving the payload as a KindMCP
// artifact failed, it saves the same payload (the pageable text, when it was
// unwrapped) as a KindTool artifact. If that fails too, both reasons are
// kept for Bound to report. A nil saver disables the link.
func Spillover(saver Saver) Middleware {
	if saver == nil {
		return func(next Handler) Handler { return next }
	}
	return onResult(func(ctx context.Context, call Call, res callresult.Result) callresult.Result {
		rec := call.record()
		if rec.path != "" || len(rec.saveErrs) == 0 || !rec.havePayload {
			return res
		}
		path, err := save(ctx, call, saver, KindTool, call.Tool, rec.payload)
		if err != nil {
			rec.saveErrs = append(rec.saveErrs, fmt.Errorf("saving to .artifacts/%s failed: %w", KindTool, err))
			return res
		}
		rec.path, rec.kind = path, KindTool
		return res
	})
}
