package shaping

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/callresult"
)

// Artifact kinds, as Saver.Save receives them.
const (
	// KindMCP is the directory of MCP results: <workspace>/.artifacts/mcp.
	KindMCP = "mcp"
	// KindTool is the generic spillover: <workspace>/.artifacts/tool.
	KindTool = "tool"
)

// Saver keeps a payload on disk and returns the file's path
// (artifacts.Store implements it).
type Saver interface {
	Save(ctx context.Context, kind, server, tool, payload string) (string, error)
}

// ClientSaver is a Saver that keeps each named client's payloads apart:
// ForClient returns the Saver of one client's payloads. A call with a
// Client is saved through it; when the chain's Saver is no ClientSaver,
// such a call's payload is not saved at all rather than shared.
type ClientSaver interface {
	Saver
	ForClient(name string) (*artifacts.Store, error)
}

var _ ClientSaver = (*artifacts.Store)(nil)

// saverOf returns the Saver of call's payloads: saver itself, or for a
// named client its own (see ClientSaver).
func saverOf(call Call, saver Saver) (Saver, error) {
	if call.Client == "" {
		return saver, nil
	}
	cs, ok := saver.(ClientSaver)
	if !ok {
		return nil, fmt.Errorf("results of client %q cannot be kept apart from other clients'", call.Client)
	}
	s, err := cs.ForClient(call.Client)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// save saves payload as kind through call's Saver (saverOf).
func save(ctx context.Context, call Call, saver Saver, kind, tool, payload string) (string, error) {
	s, err := saverOf(call, saver)
	if err != nil {
		return "", err
	}
	return s.Save(ctx, kind, call.Server, tool, payload)
}

// Artifact saves the full payload of a result whose text is over budget
// characters, or whose text an inner link rewrote (unwrapped or sanitized),
// as a KindMCP artifact. The payload is what the server sent, after
// unwrapping and before sanitizing. Where it went — or why it could not be
// saved — is left for Spillover and Bound; the result itself is unchanged.
// A nil saver or a budget of 0 or less disables the link.
func Artifact(budget int, saver Saver) Middleware {
	if saver == nil || budget <= 0 {
		return func(next Handler) Handler { return next }
	}
	return onResult(func(ctx context.Context, call Call, res callresult.Result) callresult.Result {
		rec := call.record()
		text, _ := textOf(res)
		if !rec.needsSaving(utf8.RuneCountInString(text), budget) {
			return res
		}
		rec.keepPayload(text)
		path, err := save(ctx, call, saver, KindMCP, call.Tool, rec.payload)
		if err != nil {
			rec.saveErrs = append(rec.saveErrs, fmt.Errorf("saving to .artifacts/%s failed: %w", KindMCP, err))
			return res
		}
		rec.path, rec.kind = path, KindMCP
		return res
	})
}
