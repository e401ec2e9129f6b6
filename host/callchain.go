package host

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/shaping"
	"github.com/plughost/plughost/host/supervisor"
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

// callChain is the path of every MCP tool call under one config: the
// shaping middleware chain and the artifact store (the workspace) it saves
// oversized results to.
type callChain struct {
	store    *artifacts.Store
	handler  shaping.Handler
	links    []shaping.Middleware // handler's links, for a result fetched outside a call (a task's)
	maxChars int
	limits   artifacts.SearchLimits // of search_files over the store
}

// newCallChain builds the chain for cfg, keeping prev's store when the
// workspace did not change (prev may be nil).
func (h *Host) newCallChain(cfg *config.Config, prev *setup) (*callChain, error) {
	var store *artifacts.Store
	a := cfg.MCP.Artifacts
	limits := artifacts.SearchLimits{Timeout: a.SearchTimeout(), MaxBytes: a.SearchMaxBytes()}
	if prev != nil && prev.cfg.MCP.Workspace == cfg.MCP.Workspace && prev.chain.limits == limits {
		store = prev.chain.store
	} else {
		var err error
		if store, err = artifacts.NewStore(cfg.MCP.Workspace, artifacts.WithSearchLimits(limits)); err != nil {
			return nil, fmt.Errorf("tools.mcp.workspace: %w", err)
		}
	}
	opts := shaping.Options{
		MaxInlineChars: cfg.MCP.MaxInlineTextChars,
		Saver:          store,
		Logger:         h.logger.Named("shaping"),
		Metrics:        &h.metrics,
		CallTimeout:    h.callTimeout,
	}
	links := shaping.Standard(opts)
	return &callChain{store: store, handler: shaping.Chain(h.callServer, links...), links: links,
		maxChars: cfg.MCP.MaxInlineTextChars, limits: limits}, nil
}

// call runs an MCP tool call through the current config's chain.
func (h *Host) call(ctx context.Context, c shaping.Call) (shaping.Result, error) {
	return h.st().chain.handler(ctx, c)
}

// callServer is the chain's last link: the call to the server's plugin.
func (h *Host) callServer(ctx context.Context, c shaping.Call) (shaping.Result, error) {
	sup, release, err := h.conn(ctx, c.Session, c.Server)
	if err != nil {
		return shaping.Result{}, fmt.Errorf("tool %q: server %q: %w", c.Name, c.Server, err)
	}
	defer release()
	began := time.Now()
	res, err := sup.CallTool(ctx, supervisor.ToolCall{Tool: c.Tool, Args: c.Args, Meta: c.Meta, OnID: c.OnID})
	h.calls.Record(c.Server, time.Since(began), err != nil || res.IsError)
	if err != nil {
		return shaping.Result{}, h.masker.Error(err) // a crashed server's error quotes its stderr
	}
	res = h.claimSpooled(c, res)
	return shaping.Result{Result: res, Size: resultSize(res)}, nil
}

// spooledKey is the _meta member of a result spooled while it was read
// (pluginapi.ResultSpool); its "path" is the file.
const spooledKey = "plughost/spooled"

// claimSpooled moves the file of a result spooled to the workspace's
// directory of MCP results into the directory of the named client that
// made call, and rewrites the path in the result's text and _meta, so that
// client's read_file opens it and no other client's can. A call of the
// administrator, or a result not spooled, is returned unchanged; so is one
// whose file could not be moved (logged), which the client then cannot
// page.
func (h *Host) claimSpooled(c shaping.Call, res callresult.Result) callresult.Result {
	if c.Client == "" {
		return res
	}
	meta := res.Meta()
	if meta == nil {
		return res
	}
	spooled, ok := meta.AdditionalFields[spooledKey].(map[string]any)
	if !ok {
		return res
	}
	old, _ := spooled["path"].(string)
	if old == "" {
		return res
	}
	store, err := h.st().chain.store.ForClient(c.Client)
	if err == nil {
		var moved string
		if moved, err = store.Claim(old); err == nil {
			return withSpooledPath(res, meta, spooled, old, moved)
		}
	}
	h.logger.Warn("could not move a spooled result to its client's directory", "server", c.Server, "tool", c.Tool, "client", c.Client, "error", err)
	return res
}

// withSpooledPath returns res with the spooled file's path old replaced by
// moved in its text items and in a copy of its _meta.
func withSpooledPath(res callresult.Result, meta *mcp.Meta, spooled map[string]any, old, moved string) callresult.Result {
	content := make([]callresult.Content, len(res.Content))
	for i, item := range res.Content {
		if item.Type == callresult.ContentText {
			item.Text = strings.ReplaceAll(item.Text, old, moved)
		}
		content[i] = item
	}
	res.Content = content
	fields := maps.Clone(meta.AdditionalFields)
	entry := maps.Clone(spooled)
	entry["path"] = moved
	fields[spooledKey] = entry
	m := *meta
	m.AdditionalFields = fields
	return res.WithMeta(&m)
}

// resultSize is about how many bytes of memory a result holds: its text,
// binary data and structured content.
func resultSize(res callresult.Result) int {
	n := len(res.StructuredContent)
	for _, c := range res.Content {
		switch c.Type {
		case callresult.ContentText, callresult.ContentImage, callresult.ContentAudio, callresult.ContentResource:
			n += len(c.Text) + len(c.Data)
		}
	}
	return n
}

func (h *Host) callTimeout(c shaping.Call) time.Duration {
	cfg := h.st().cfg
	srv, ok := cfg.MCP.Servers[c.Server]
	if !ok {
		return 0
	}
	return srv.Timeouts(cfg.MCP.Timeouts.Durations()).Call + shapingGrace
}

// restartRetention (re)starts artifact retention for st: old saved results
// are removed now and every retentionInterval. Callers hold applyMu.
func (h *Host) restartRetention(st *setup) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.retention != nil {
		h.retention()
	}
	ctx, cancel := context.WithCancel(h.runCtx)
	h.retention = cancel
	r := artifacts.Retention{
		MaxAge:        st.cfg.MCP.Artifacts.MaxAge(),
		MaxTotalBytes: st.cfg.MCP.Artifacts.MaxTotalBytes(),
		Grace:         retentionGrace,
	}
	store := st.chain.store
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		store.RunRetention(ctx, r, retentionInterval, func(res artifacts.SweepResult, err error) {
			if err != nil {
				h.logger.Warn("artifact retention", "error", err)
			}
			if res.Removed > 0 {
				h.logger.Info("artifact retention removed old results", "files", res.Removed, "freed_bytes", res.FreedBytes, "kept_bytes", res.KeptBytes)
			}
		})
	}()
}

// Artifacts returns the store of saved results (the workspace).
func (h *Host) Artifacts() *artifacts.Store { return h.st().chain.store }

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

// callPaging runs read_file or search_files for client ("" for the
// administrator), bounded by the inline budget: a named client reads only
// its own directory of saved results, the administrator the workspace.
func (h *Host) callPaging(ctx context.Context, client, name string, args json.RawMessage) ToolResult {
	chain := h.st().chain
	store := chain.store
	if client != "" {
		var err error
		if store, err = store.ForClient(client); err != nil {
			res := callresult.NewTextResult(fmt.Sprintf("%s: %v", name, err))
			res.IsError = true
			return res
		}
	}
	text, isError := store.HandleTool(ctx, name, args, chain.maxChars)
	res := callresult.NewTextResult(text)
	res.IsError = isError
	return res
}
