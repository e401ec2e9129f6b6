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
// the session and answers with the gateway's: the aggregate endpoint's
// capabilities follow what its servers offer (host.ServerCapabilities); a
// per-server endpoint answers with its server's own capabilities, serverInfo
// and instructions.
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
	st, err := g.h.Sessions().Update(ctx, x.sess.ID(), func(st *host.SessionRecord) error {
		st.Protocol, st.ClientInfo = version, client
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := x.sess.TakeListChange(ctx); err != nil { // the client lists next: nothing to announce
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if st.Scope != "" {
		return g.serverInitialize(st.Scope, version)
	}
	return json.Marshal(struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    json.RawMessage    `json:"capabilities"`
		ServerInfo      mcp.Implementation `json:"serverInfo"`
		Instructions    string             `json:"instructions"`
	}{version, g.h.ServerCapabilities(), mcp.Implementation{Name: "plughost", Version: versionOr(g.opts.Version)}, instructions})
}

// serverInitialize answers initialize on a per-server endpoint with what
// the server said at its own (last) initialize; a server that never
// initialized offers tools under plughost's serverInfo.
func (g *Gateway) serverInitialize(server, version string) (json.RawMessage, error) {
	res := struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    json.RawMessage `json:"instructions,omitempty"`
	}{ProtocolVersion: version, Capabilities: json.RawMessage(`{"tools":{"listChanged":true}}`)}
	res.ServerInfo, _ = json.Marshal(mcp.Implementation{Name: "plughost/" + server, Version: versionOr(g.opts.Version)})
	if srv, ok := g.h.Server(server); ok {
		if init, ok := srv.Initialized(); ok {
			if len(init.Capabilities) > 0 {
				res.Capabilities = init.Capabilities
			}
			if len(init.ServerInfo) > 0 {
				res.ServerInfo = init.ServerInfo
			}
			res.Instructions = init.Instructions
		}
	}
	return json.Marshal(res)
}

// toolsList answers tools/list with the tools the session sees: the
// servers' definitions as they listed them (names aside on the aggregate
// endpoint), written out without re-encoding. One page holds every tool.
func (g *Gateway) toolsList(ctx context.Context, x *exchange) (json.RawMessage, error) {
	defs, err := x.sess.ToolDefinitions(ctx)
	if err != nil {
		return nil, err
	}
	size := len(`{"tools":[]}`)
	for _, d := range defs {
		size += len(d) + 1
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	out.WriteString(`{"tools":[`)
	for i, d := range defs {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(d)
	}
	out.WriteString(`]}`)
	return out.Bytes(), nil
}

// toolsCall answers tools/call through the session (every call that is
// not a search ends a turn: host.Session.CallWith). An unknown tool is a JSON-RPC error (-32602,
// invalid params, as the MCP spec says), and so is a JSON-RPC error the
// server answered (passed on as the server sent it, secrets masked); a
// call that could not be made — server down, crash, timeout, bad
// arguments — is a result with isError set that says why, so it degrades
// only that tool. The request's _meta (a progress token) travels to the
// server, and what the server sends during the call comes back on the
// request's channel; a call with a "task" member answers with the task the
// server created. A call whose session ended meanwhile is answered like a
// request of an unknown session (ended.go).
func (g *Gateway) toolsCall(ctx context.Context, x *exchange) (json.RawMessage, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta"`
		Task      json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(x.msg.Params, &p); err != nil || p.Name == "" {
		return nil, invalidParams(`tools/call: params must be {"name": "<tool>", "arguments": {...}}`)
	}
	opts := g.callOptions(x)
	opts.Meta = p.Meta
	if len(p.Task) > 0 && !bytes.Equal(p.Task, []byte("null")) {
		opts.Task = p.Task
	}
	began := time.Now()
	r, err := x.sess.CallWith(ctx, p.Name, p.Arguments, opts)
	took := time.Since(began)
	var unknown *host.UnknownToolError
	if errors.As(err, &unknown) {
		g.metrics.refused()
		return nil, &rpcError{Code: codeInvalidParams, Message: err.Error()}
	}
	if errors.Is(err, host.ErrStoreUnavailable) || errors.Is(err, host.ErrSessionNotFound) { // no result to speak of; an ended session is 404
		return nil, err
	}
	g.metrics.call([2]string{r.Server, r.Tool}, took, r.Result.IsError, err, r.Search)
	if err := endedDuring(ctx, x, took); err != nil {
		return nil, err
	}
	var serverErr *host.RPCError
	switch {
	case errors.As(err, &serverErr):
		return nil, serverErr
	case err != nil:
		return json.Marshal(mcp.NewToolResultError(callFailure(p.Name, err)))
	case r.Task != nil:
		return r.Task, nil
	}
	return r.JSON() // the server's result, every member kept but what shaping rewrote
}

// forwardedMethods are the requests the host answers through
// host.Session.Request.
var forwardedMethods = []string{
	"resources/list", "resources/templates/list", "resources/read",
	"resources/subscribe", "resources/unsubscribe",
	"prompts/list", "prompts/get", "completion/complete", "logging/setLevel",
	"tasks/get", "tasks/result", "tasks/cancel", "tasks/list",
}

// forwarded answers a request the host forwards to the servers: resources,
// prompts, completion, logging and tasks. JSON-RPC errors (the server's,
// its configured secrets masked, or the host's: an unknown prompt, a
// resource no server offers) are passed on as they are; what the server
// sends meanwhile comes back on the request's channel.
// With replicas, a tasks/* request for a task another replica holds is
// run there (relayTo), a new log level is told to the replica holding the
// session's stream, and an unsubscription to every replica (the one
// holding the subscription ends it).
func (g *Gateway) forwarded(ctx context.Context, x *exchange) (json.RawMessage, error) {
	if owner, ok := g.ownerElsewhere(x); ok {
		return g.relayTo(ctx, x, owner)
	}
	res, err := x.sess.Request(ctx, x.msg.Method, x.msg.Params, g.callOptions(x))
	var re *host.RPCError
	if errors.As(err, &re) {
		return nil, re
	}
	if err == nil && g.rs != nil {
		switch x.msg.Method {
		case "logging/setLevel":
			g.tellLevel(ctx, x.sess.ID())
		case "resources/unsubscribe":
			g.tellUnsubscribed(ctx, x.sess.ID(), x.msg.Params)
		}
	}
	return res, err
}

// passOn gives a notification of the client to the servers it concerns.
func (g *Gateway) passOn(ctx context.Context, x *exchange) {
	if x.sess != nil {
		x.sess.Notify(ctx, x.msg.Method, x.msg.Params)
	}
}

// callFailure is the text of an isError result for a call that failed.
func callFailure(name string, err error) string {
	var (
		down *host.ServerUnavailableError
		held *host.QuarantinedToolError
	)
	if errors.As(err, &down) || errors.As(err, &held) {
		return err.Error() // it names the tool, the server, and what to do
	}
	return fmt.Sprintf("tool %q failed: %v", name, err)
}
