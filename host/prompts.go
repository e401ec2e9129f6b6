package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/plughost/plughost/host/access"
	"github.com/plughost/plughost/host/naming"
	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/lib/rawjson"
)

// Prompts on the aggregate endpoint are named mcp_<server>_<prompt> by the
// rules of tool names (host/naming: sanitizing, a hash suffix on a
// collision or a name over 64 characters), over the set of every prompt
// known, and map back through the table, never by splitting the name.

// promptServers returns the servers that offer prompts, in name order.
func (h *Host) promptServers() []string {
	var out []string
	for _, name := range h.st().order {
		if c, ok := h.serverCaps(name); ok && c.Prompts != nil {
			out = append(out, name)
		}
	}
	return out
}

// listPrompts lists every prompt server (a server that fails is left out
// and logged), renames the prompts over the whole set and keeps the table.
func (h *Host) listPrompts(ctx context.Context) ([]string, [][]routing.PromptEntry, *naming.Table) {
	servers := h.promptServers()
	lists := make([][]routing.PromptEntry, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Go(func() {
			l, err := h.router.Prompts(ctx, srv)
			if err != nil {
				h.router.Logger().Warn("listing prompts failed; leaving the server out", "server", srv, "error", err)
				l = h.router.CachedPrompts(srv) // names stay resolvable
			}
			lists[i] = l
		})
	}
	wg.Wait()
	var pairs []naming.Pair
	for i, l := range lists {
		for _, p := range l {
			pairs = append(pairs, naming.Pair{Server: servers[i], Tool: p.Name})
		}
	}
	tb := naming.NewTable(pairs)
	h.router.SetPromptNames(tb)
	return servers, lists, tb
}

// promptsList answers prompts/list for an aggregate session: every prompt
// in one page, its definition as the server listed it but for the name.
func (s *Session) promptsList(ctx context.Context, rule access.Rule) (json.RawMessage, error) {
	servers, lists, tb := s.h.listPrompts(ctx)
	var b strings.Builder
	b.WriteString(`{"prompts":[`)
	n := 0
	for i, l := range lists {
		if !rule.AllowsServer(servers[i]) {
			continue
		}
		for _, p := range l {
			name, _ := tb.Name(naming.Pair{Server: servers[i], Tool: p.Name})
			raw, _ := rawjson.Replace(p.Raw, quote(name), "name")
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.Write(raw)
		}
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String()), nil
}

// resolvePrompt maps an aggregate prompt name to its server and the
// server's name; an unknown name lists the prompts again once.
func (h *Host) resolvePrompt(ctx context.Context, name string, rule access.Rule) (naming.Pair, error) {
	tb := h.router.PromptNames()
	if tb != nil {
		if p, ok := tb.Lookup(name); ok && rule.AllowsServer(p.Server) {
			return p, nil
		}
	}
	_, _, tb = h.listPrompts(ctx)
	if p, ok := tb.Lookup(name); ok && rule.AllowsServer(p.Server) {
		return p, nil
	}
	server := h.serverOfNameFor(name, rule)
	waited, err := h.awaitStart(ctx, server)
	var starting *StartTimeoutError
	switch {
	case errors.As(err, &starting):
		st, _ := h.Status(server)
		return naming.Pair{}, unknownPrompt(name, server, stillStarting(starting, st.LastError))
	case err != nil:
		return naming.Pair{}, err
	case waited: // the server it names was starting: its prompts are known now
		_, _, tb = h.listPrompts(ctx)
		if p, ok := tb.Lookup(name); ok && rule.AllowsServer(p.Server) {
			return p, nil
		}
	}
	if st, ok := h.Status(server); ok && st.State != supervisor.StateConnected {
		return naming.Pair{}, unknownPrompt(name, server, describeDown(st))
	}
	return naming.Pair{}, unknownPrompt(name, "", "")
}

// unknownPrompt is the error for a prompt name no server has; down, when
// set, says why the server the name points to has no prompts known.
func unknownPrompt(name, server, down string) *RPCError {
	if down != "" {
		return &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf("unknown prompt %q: server %q is %s, so its prompts are not known", name, server, down)}
	}
	return &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf("unknown prompt %q: prompts/list names every prompt (mcp_<server>_<prompt>)", name)}
}

// getPrompt answers prompts/get for an aggregate session: routed by name,
// and the URIs of resources in its messages as the session sees them; to
// gets the server and its prompt name once resolved.
func (s *Session) getPrompt(ctx context.Context, params json.RawMessage, opts CallOptions, rule access.Rule, to *callee) (json.RawMessage, error) {
	name, ok := rawjson.String(params, "name")
	if !ok {
		return nil, &RPCError{Code: codeInvalidParams, Message: `prompts/get: params must be {"name": "<prompt>", "arguments": {...}}`}
	}
	p, err := s.h.resolvePrompt(ctx, name, rule)
	if err != nil {
		return nil, err
	}
	*to = callee{p.Server, p.Tool}
	params, _ = rawjson.Replace(params, quote(p.Tool), "name")
	raw, err := s.forward(ctx, "", p.Server, "prompts/get", params, opts)
	if err != nil {
		return nil, err
	}
	toClient := func(u string) string { return s.h.router.ClientURI(p.Server, u) }
	return mapEach(raw, []string{"messages"}, func(msg []byte) []byte {
		start, end, ok := rawjson.Member(msg, "content")
		if !ok {
			return msg
		}
		c := msg[start:end:end]
		if m := mapContentLinks(c, toClient); len(m) != len(c) || &m[0] != &c[0] {
			msg, _ = rawjson.Replace(msg, m, "content")
		}
		return msg
	}), nil
}

// complete answers completion/complete for an aggregate session: a prompt
// reference is routed by the prompt's name, a resource reference by its
// template (or URI).
func (s *Session) complete(ctx context.Context, params json.RawMessage, opts CallOptions, rule access.Rule) (json.RawMessage, error) {
	typ, _ := rawjson.String(params, "ref", "type")
	var server string
	switch typ {
	case "ref/prompt":
		name, _ := rawjson.String(params, "ref", "name")
		p, err := s.h.resolvePrompt(ctx, name, rule)
		if err != nil {
			return nil, err
		}
		server = p.Server
		params, _ = rawjson.Replace(params, quote(p.Tool), "ref", "name")
	case "ref/resource":
		uri, _ := rawjson.String(params, "ref", "uri")
		srv, own, err := s.h.resolveTemplate(ctx, uri, rule)
		if err != nil {
			return nil, err
		}
		server = srv
		if own != uri {
			params, _ = rawjson.Replace(params, quote(own), "ref", "uri")
		}
	default:
		return nil, &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf(`completion/complete: ref.type %q is neither "ref/prompt" nor "ref/resource"`, typ)}
	}
	return s.forward(ctx, "", server, "completion/complete", params, opts)
}

// resolveTemplate routes a resource reference of a completion: a template
// in the per-server form, a template one server offers as written, or a
// URI (routed like a read).
func (h *Host) resolveTemplate(ctx context.Context, uri string, rule access.Rule) (string, string, error) {
	var owners []string
	for _, srv := range allowedServers(h.router.ResourceServers(), rule) {
		l := h.router.CachedResources(srv)
		if l == nil {
			var err error
			if l, err = h.router.Resources(ctx, srv); err != nil {
				continue
			}
		}
		if l.TemplateTexts[uri] {
			owners = append(owners, srv)
		}
	}
	if len(owners) == 1 {
		return owners[0], uri, nil
	}
	return h.resolveURI(ctx, uri, rule)
}
