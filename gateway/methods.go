package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host"
)

// protocolVersions are the MCP versions the gateway speaks, newest first.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// negotiate picks the version to answer initialize with: the client's when
// the gateway speaks it, else the newest.
func negotiate(requested string) string {
	if slices.Contains(protocolVersions, requested) {
		return requested
	}
	return protocolVersions[0]
}

const instructions = "plughost serves the tools of several MCP servers under names mcp_<server>_<tool>. " +
	"If a search tool (tool_search_tool_bm25 or tool_search_tool_regex) is listed, most tools are hidden: " +
	"search for a capability before concluding it is missing; found tools become callable for a few turns."

// initialize records the client's protocol version and self-description in
// the session and answers with the gateway's.
func (g *Gateway) initialize(ctx context.Context, x *exchange) (json.RawMessage, error) {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	if err := json.Unmarshal(x.msg.Params, &p); err != nil {
		return nil, invalidParams("initialize: params must be an object with protocolVersion, capabilities and clientInfo: %v", err)
	}
	version := negotiate(p.ProtocolVersion)
	client, _ := json.Marshal(struct { // raw JSON from a parsed message always encodes
		Info         json.RawMessage `json:"clientInfo,omitempty"`
		Capabilities json.RawMessage `json:"capabilities,omitempty"`
	}{p.ClientInfo, p.Capabilities})
	_, err := g.h.Sessions().Update(ctx, x.sess.ID(), func(st *host.SessionState) error {
		st.Protocol, st.Client = version, client
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := x.sess.TakeListChange(ctx); err != nil { // the client lists next: nothing to announce
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return json.Marshal(mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities: mcp.ServerCapabilities{Tools: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{ListChanged: true}},
		ServerInfo:   mcp.Implementation{Name: "plughost", Version: versionOr(g.opts.Version)},
		Instructions: instructions,
	})
}

// toolsList answers tools/list with the tools the session sees: the
// servers' definitions as they listed them (names aside), written out
// without re-encoding. One page holds every tool.
func (g *Gateway) toolsList(ctx context.Context, x *exchange) (json.RawMessage, error) {
	tools, err := x.sess.Visible(ctx)
	if err != nil {
		return nil, err
	}
	size := len(`{"tools":[]}`)
	for _, t := range tools {
		size += len(t.Definition) + 1
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	out.WriteString(`{"tools":[`)
	for i, t := range tools {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(t.Definition)
	}
	out.WriteString(`]}`)
	return out.Bytes(), nil
}

// toolsCall answers tools/call through the session: every call that is not
// a search ends a turn. An unknown tool is a JSON-RPC error (-32602,
// invalid params, as the MCP spec says); a call that could not be made —
// server down, crash, timeout, bad arguments — is a result with isError
// set that says why, so it degrades only that tool.
func (g *Gateway) toolsCall(ctx context.Context, x *exchange) (json.RawMessage, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(x.msg.Params, &p); err != nil || p.Name == "" {
		return nil, invalidParams(`tools/call: params must be {"name": "<tool>", "arguments": {...}}`)
	}
	began := time.Now()
	res, err := x.sess.Call(ctx, p.Name, p.Arguments)
	took := time.Since(began)
	var unknown *host.UnknownToolError
	if errors.As(err, &unknown) {
		g.metrics.refused()
		return nil, &rpcError{Code: codeInvalidParams, Message: err.Error()}
	}
	if errors.Is(err, host.ErrStoreUnavailable) { // the call did not run: no result to speak of
		return nil, err
	}
	search := x.sess.IsSearchTool(p.Name)
	if !search {
		if err := x.sess.EndTurn(ctx); err != nil && !errors.Is(err, host.ErrSessionNotFound) {
			g.logger.Warn("ending a turn", "session", x.sess.ID(), "error", err)
		}
	}
	g.metrics.call(g.labels(p.Name, search), took, res, err, search)
	if err != nil {
		res = mcp.NewToolResultError(callFailure(p.Name, err))
	}
	return json.Marshal(res)
}

// callFailure is the text of an isError result for a call that failed.
func callFailure(name string, err error) string {
	var down *host.ServerUnavailableError
	if errors.As(err, &down) {
		return err.Error() // it names the tool, the server, its state and last error
	}
	return fmt.Sprintf("tool %q failed: %v", name, err)
}

// labels are the metric labels of a call: the server and its own tool
// name, or "plughost" and the name for tools the host answers itself
// (search, built-ins).
func (g *Gateway) labels(name string, search bool) [2]string {
	if !search {
		if t, ok := g.h.Registry().Lookup(name); ok {
			return [2]string{t.Server, t.ServerTool}
		}
	}
	return [2]string{"plughost", name}
}
