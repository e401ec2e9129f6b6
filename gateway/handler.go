package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// beforeRequest runs before mcp-go handles any request. It makes sure the
// MCP session has its gateway session (and so its tool list) before its
// first tools/list, and prepares tools/call for names the client was not
// shown: a hidden tool called by its exact name is routed to the gateway
// (the call unlocks it); an unknown name is refused with the closest names.
func (g *Gateway) beforeRequest(ctx context.Context, _ any, message any) error {
	s := g.sessionFor(ctx)
	raw, ok := message.(json.RawMessage)
	if s == nil || !ok {
		return nil
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil || req.Method != string(mcp.MethodToolsCall) || s.visible(req.Params.Name) {
		return nil
	}
	if err := s.hs.Callable(req.Params.Name); err != nil {
		g.metrics.refused()
		return err
	}
	s.beginHidden(req.Params.Name)
	return nil
}

// handle serves every tools/call: Session.Call, then the end of the turn
// (unless it was a search), then the session's tool list is re-published
// (notifying the client if it changed). A failed call — server down,
// crashed, timed out, bad arguments — is a result with isError set that
// says why, so it degrades only that tool.
func (g *Gateway) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s := g.sessionFor(ctx)
	if s == nil {
		return nil, errors.New("tools/call outside an MCP session")
	}
	name := req.Params.Name
	hidden := !s.visible(name)
	defer s.endHidden(name)
	args, err := arguments(req.Params.Arguments)
	began := time.Now()
	var res *mcp.CallToolResult
	if err == nil {
		res, err = s.hs.Call(ctx, name, args)
	}
	took := time.Since(began)
	search := s.hs.IsSearchTool(name)
	if !search {
		s.hs.EndTurn()
	}
	added := s.sync()
	g.metrics.call(g.labels(name, search), took, res, err, search, unlocks(search, hidden, name, added))
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("tool %q failed: %v", name, err)), nil
	}
	return res, nil
}

// arguments re-encodes the call's arguments for Session.Call; absent
// arguments are {}.
func arguments(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return b, nil
}

// unlocks counts the tools a call made visible: those a search brought in,
// or the hidden tool called by its exact name.
func unlocks(search, hidden bool, name string, added []string) int {
	if search {
		return len(added)
	}
	for _, a := range added {
		if hidden && a == name {
			return 1
		}
	}
	return 0
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
