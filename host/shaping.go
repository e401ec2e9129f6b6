package host

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/shaping"
)

// shapingGrace is added to a server's call timeout to bound a whole call,
// result shaping (an artifact write) included; the server's own timeout
// fires first, with its own message.
const shapingGrace = 30 * time.Second

// retentionInterval is how often artifact retention runs after start-up.
const retentionInterval = 10 * time.Minute

// retentionGrace keeps artifacts this young even over the size budget, so
// a [file:...] reference just handed to the model stays valid.
const retentionGrace = 10 * time.Minute

// newShaping prepares the artifact store and builds the call chain once.
func (h *Host) newShaping() error {
	a := h.cfg.MCP.Artifacts
	store, err := artifacts.NewStore(h.cfg.MCP.Workspace, artifacts.WithSearchLimits(artifacts.SearchLimits{
		Timeout: a.SearchTimeout(), MaxBytes: a.SearchMaxBytes(),
	}))
	if err != nil {
		return fmt.Errorf("tools.mcp.workspace: %w", err)
	}
	h.store = store
	h.call = shaping.New(h.callServer, shaping.Options{
		MaxInlineChars: h.cfg.MCP.MaxInlineTextChars,
		Saver:          store,
		Logger:         h.logger.Named("shaping"),
		Metrics:        &h.metrics,
		CallTimeout:    h.callTimeout,
	})
	return nil
}

// callServer is the chain's last link: the call to the server's plugin.
func (h *Host) callServer(ctx context.Context, c shaping.Call) (*mcp.CallToolResult, error) {
	srv, ok := h.servers[c.Server]
	if !ok {
		return nil, fmt.Errorf("tool %q: server %q: %w", c.Name, c.Server, errServerNotRunning)
	}
	res, err := srv.Call(ctx, c.Tool, c.Args)
	if err == nil {
		noteResultSize(ctx, resultSize(res))
	}
	return res, h.masker.Error(err) // a crashed server's error quotes its stderr
}

// resultSize is about how many bytes of memory a result holds: its text,
// binary data and structured content.
func resultSize(res *mcp.CallToolResult) int {
	n := len(res.RawStructuredContent)
	for _, c := range res.Content {
		switch v := c.(type) {
		case mcp.TextContent:
			n += len(v.Text)
		case mcp.ImageContent:
			n += len(v.Data)
		case mcp.AudioContent:
			n += len(v.Data)
		case mcp.EmbeddedResource:
			if b, ok := v.Resource.(mcp.BlobResourceContents); ok {
				n += len(b.Blob)
			} else if t, ok := v.Resource.(mcp.TextResourceContents); ok {
				n += len(t.Text)
			}
		}
	}
	return n
}

func (h *Host) callTimeout(c shaping.Call) time.Duration {
	srv, ok := h.cfg.MCP.Servers[c.Server]
	if !ok {
		return 0
	}
	return srv.Timeouts(h.cfg.MCP.Timeouts.Durations()).Call + shapingGrace
}

// runRetention removes old artifacts at start and periodically until ctx
// ends.
func (h *Host) runRetention(ctx context.Context) {
	r := artifacts.Retention{
		MaxAge:        h.cfg.MCP.Artifacts.MaxAge(),
		MaxTotalBytes: h.cfg.MCP.Artifacts.MaxTotalBytes(),
		Grace:         retentionGrace,
	}
	h.store.RunRetention(ctx, r, retentionInterval, func(res artifacts.SweepResult, err error) {
		if err != nil {
			h.logger.Warn("artifact retention", "error", err)
		}
		if res.Removed > 0 {
			h.logger.Info("artifact retention removed old results", "files", res.Removed, "freed_bytes", res.FreedBytes, "kept_bytes", res.KeptBytes)
		}
	})
}

// Artifacts returns the store of saved results (the workspace).
func (h *Host) Artifacts() *artifacts.Store { return h.store }

// ShapingMetrics returns what result shaping did so far.
func (h *Host) ShapingMetrics() shaping.MetricsSnapshot { return h.metrics.Snapshot() }

// pagingTools returns read_file and search_files as the model sees them.
func pagingTools() []registry.Tool {
	defs := artifacts.ToolDefs()
	out := make([]registry.Tool, len(defs))
	for i, d := range defs {
		out[i] = registry.NewTool(d.Name, d.Description, d.InputSchema)
	}
	return out
}

// callPaging runs read_file or search_files, bounded by the inline budget.
func (h *Host) callPaging(ctx context.Context, name string, args json.RawMessage) *mcp.CallToolResult {
	text, isError := h.store.HandleTool(ctx, name, args, h.cfg.MCP.MaxInlineTextChars)
	res := mcp.NewToolResultText(text)
	res.IsError = isError
	return res
}
