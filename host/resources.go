package host

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/plughost/plughost/host/access"
	"github.com/plughost/plughost/host/resourceuri"
	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/lib/rawjson"
)

// Resource URIs on the aggregate endpoint (docs/gateway.md, "Resources"):
// how a server's URI is shown is decided by host/routing
// (Router.ClientURI), which keeps the servers' catalogs; a URI from a
// session is routed back here (resolveURI). Templates stay as written
// unless another server's template matches what they expand to.

// clientTemplate is server's URI template as an aggregate session sees it:
// as written, unless what it expands to could be another server's.
func (h *Host) clientTemplate(server, tmpl string) string {
	sample := sampleExpansion(tmpl)
	for _, s := range h.router.ResourceServers() {
		if s == server {
			continue
		}
		l := h.router.CachedResources(s)
		if l == nil {
			continue
		}
		if l.TemplateTexts[tmpl] || l.URIs[sample] {
			return resourceuri.Encode(server, tmpl)
		}
		for _, t := range l.Compiled {
			if t.Match(sample) {
				return resourceuri.Encode(server, tmpl)
			}
		}
	}
	return tmpl
}

var templateExpr = regexp.MustCompile(`\{[^}]*\}`)

// sampleExpansion expands every expression of a template with a sample
// value its operator allows.
func sampleExpansion(tmpl string) string {
	return templateExpr.ReplaceAllStringFunc(tmpl, func(e string) string {
		if len(e) < 3 {
			return ""
		}
		switch e[1] {
		case '+', '#':
			return "x/1"
		case '/':
			return "/x1"
		case '.':
			return ".x1"
		case ';', '?', '&':
			return ""
		}
		return "x1"
	})
}

// resolveURI routes a URI from an aggregate session: the server and the
// server's own URI. Catalogs not known yet are listed first.
func (h *Host) resolveURI(ctx context.Context, uri string, rule access.Rule) (string, string, error) {
	if server, own, ok := resourceuri.Decode(uri); ok {
		if _, known := h.Server(server); known && rule.AllowsServer(server) {
			return server, own, nil
		}
		return "", "", &RPCError{Code: codeResourceNotFound, Message: fmt.Sprintf("resource %q: no server %q is running", uri, server)}
	}
	servers := allowedServers(h.listedResourceServers(ctx), rule)
	if len(h.router.Claimants(uri, servers)) == 0 {
		// No server claims it: it may be one of a server starting for the
		// first time, whose resources are not known yet.
		waited, err := h.awaitStart(ctx, h.newcomers()...)
		if err != nil {
			return "", "", fmt.Errorf("resource %q: %w", uri, err)
		}
		if waited {
			servers = allowedServers(h.listedResourceServers(ctx), rule)
		}
	}
	switch o := h.router.Owners(uri, servers); len(o) {
	case 1:
		return o[0], uri, nil
	case 0:
		return "", "", &RPCError{Code: codeResourceNotFound, Message: fmt.Sprintf(
			"resource %q: no server lists it or has a template for it; name the server with %s", uri, resourceuri.Encode("<server>", uri))}
	default:
		return "", "", &RPCError{Code: codeInvalidParams, Message: fmt.Sprintf(
			"resource %q: servers %s all offer it; name one with %s", uri, strings.Join(o, ", "), resourceuri.Encode(o[0], uri))}
	}
}

// listedResourceServers returns the servers that offer resources, each
// with its catalog listed (a server whose listing fails is logged).
func (h *Host) listedResourceServers(ctx context.Context) []string {
	servers := h.router.ResourceServers()
	for _, s := range servers {
		if h.router.CachedResources(s) == nil {
			if _, err := h.router.Resources(ctx, s); err != nil {
				h.router.Logger().Debug("listing resources to route a URI", "server", s, "error", err)
			}
		}
	}
	return servers
}

// listResources answers resources/list (or, with templates,
// resources/templates/list) for an aggregate session: every resource
// server's entries in one page, URIs as the session sees them. A server
// that fails is left out (and logged).
func (s *Session) listResources(ctx context.Context, templates bool, rule access.Rule) (json.RawMessage, error) {
	h := s.h
	servers := allowedServers(h.router.ResourceServers(), rule)
	lists := make([]*routing.ResourceList, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Go(func() {
			l, err := h.router.Resources(ctx, srv)
			if err != nil {
				h.router.Logger().Warn("listing resources failed; leaving the server out", "server", srv, "error", err)
				return
			}
			lists[i] = l
		})
	}
	wg.Wait()
	member, key := "resources", "uri"
	if templates {
		member, key = "resourceTemplates", "uriTemplate"
	}
	var own []json.RawMessage
	if !templates {
		own = s.ownResources(ctx, servers, lists)
	}
	var b strings.Builder
	b.WriteString(`{"` + member + `":[`)
	n := 0
	for i, l := range lists {
		if l == nil {
			continue
		}
		items := l.Resources
		if templates {
			items = l.Templates
		}
		for _, it := range items {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			own, _ := rawjson.String(it, key)
			mapped := h.router.ClientURI(servers[i], own)
			if templates {
				mapped = h.clientTemplate(servers[i], own)
			}
			if mapped != own {
				it, _ = rawjson.Replace(it, quote(mapped), key)
			}
			b.Write(it)
		}
	}
	for _, it := range own {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(it)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String()), nil
}

// maxOwnPages bounds the pages of one session connection's resources/list.
const maxOwnPages = 100

// ownResources returns, for the isolated servers among servers on which
// the session has a connection of its own, the resources that connection
// lists beyond the shared catalog (lists, by server): those the session
// created. Their URIs are in the per-server form, which routes reads to
// the session's connection; no other session sees them.
func (s *Session) ownResources(ctx context.Context, servers []string, lists []*routing.ResourceList) []json.RawMessage {
	var out []json.RawMessage
	for i, server := range servers {
		srv := s.h.ownConn(s.id, server)
		if srv == nil {
			continue
		}
		cursor := ""
		for range maxOwnPages {
			params := json.RawMessage(`{}`)
			if cursor != "" {
				params, _ = json.Marshal(map[string]string{"cursor": cursor}) // a string always encodes
			}
			raw, err := srv.Request(ctx, "resources/list", params)
			if err != nil {
				s.h.router.Logger().Warn("listing a session connection's resources failed", "server", server, "error", err)
				break
			}
			var page struct {
				Resources  []json.RawMessage `json:"resources"`
				NextCursor string            `json:"nextCursor"`
			}
			if json.Unmarshal(raw, &page) != nil {
				break
			}
			for _, it := range page.Resources {
				uri, ok := rawjson.String(it, "uri")
				if !ok || (lists[i] != nil && lists[i].URIs[uri]) {
					continue
				}
				it, _ = rawjson.Replace(it, quote(resourceuri.Encode(server, uri)), "uri")
				out = append(out, it)
			}
			if page.NextCursor == "" || page.NextCursor == cursor {
				break
			}
			cursor = page.NextCursor
		}
	}
	return out
}

// readResource answers resources/read for an aggregate session, noting in
// to the server and its URI once resolved.
func (s *Session) readResource(ctx context.Context, params json.RawMessage, opts CallOptions, rule access.Rule, to *callee) (json.RawMessage, error) {
	uri, ok := rawjson.String(params, "uri")
	if !ok {
		return nil, &RPCError{Code: codeInvalidParams, Message: `resources/read: params must be {"uri": "<resource URI>"}`}
	}
	server, own, err := s.h.resolveURI(ctx, uri, rule)
	if err != nil {
		return nil, err
	}
	*to = callee{server, own}
	if own != uri {
		params, _ = rawjson.Replace(params, quote(own), "uri")
	}
	raw, err := s.forward(ctx, "", server, "resources/read", params, opts)
	if err != nil {
		return nil, err
	}
	return mapEach(raw, []string{"contents"}, func(item []byte) []byte {
		return mapMember(item, "uri", func(u string) string { return s.h.router.ClientURI(server, u) })
	}), nil
}

// subscription answers resources/subscribe and resources/unsubscribe:
// routed like a read for an aggregate session, as is for a server's.
func (s *Session) subscription(ctx context.Context, scope string, rule access.Rule, subscribe bool, params json.RawMessage) (json.RawMessage, error) {
	uri, ok := rawjson.String(params, "uri")
	if !ok {
		return nil, &RPCError{Code: codeInvalidParams, Message: `params must be {"uri": "<resource URI>"}`}
	}
	server, own := scope, uri
	if scope == "" {
		var err error
		if server, own, err = s.h.resolveURI(ctx, uri, rule); err != nil {
			return nil, err
		}
	}
	if s.h.isolated(server) { // the session's own connection: nothing to share
		method := "resources/unsubscribe"
		if subscribe {
			method = "resources/subscribe"
		}
		params, _ := json.Marshal(map[string]string{"uri": own}) // a string always encodes
		return s.forward(ctx, scope, server, method, params, CallOptions{})
	}
	if subscribe {
		return json.RawMessage("{}"), s.h.router.Subscribe(ctx, s.id, server, own)
	}
	return json.RawMessage("{}"), s.h.router.Unsubscribe(ctx, s.id, server, own)
}

func quote(s string) []byte { return []byte(strconv.Quote(s)) }

// mapMember returns obj with its string member key mapped by fn (obj itself
// when the member is absent or unchanged).
func mapMember(obj []byte, key string, fn func(string) string) []byte {
	v, ok := rawjson.String(obj, key)
	if !ok {
		return obj
	}
	if m := fn(v); m != v {
		obj, _ = rawjson.Replace(obj, quote(m), key)
	}
	return obj
}

// mapEach returns raw with every element of the array at path passed
// through fn, which returns the element itself when it has nothing to
// change; raw itself when nothing changed.
func mapEach(raw []byte, path []string, fn func(item []byte) []byte) []byte {
	start, end, ok := rawjson.Member(raw, path...)
	if !ok {
		return raw
	}
	arr := raw[start:end]
	var out []byte
	last := 0
	rawjson.ScanElements(rawjson.View(arr), func(s, e int) bool {
		item := arr[s:e:e]
		if m := fn(item); len(m) != len(item) || &m[0] != &item[0] {
			if out == nil {
				out = make([]byte, 0, len(raw)+64)
				out = append(out, raw[:start]...)
			}
			out = append(out, arr[last:s]...)
			out = append(out, m...)
			last = e
		}
		return true
	})
	if out == nil {
		return raw
	}
	out = append(out, arr[last:]...)
	return append(out, raw[end:]...)
}

// mapContentLinks maps the URI of a content item that points to a
// resource: an embedded resource's resource.uri, a resource link's uri.
func mapContentLinks(item []byte, fn func(string) string) []byte {
	switch typ, _ := rawjson.String(item, "type"); typ {
	case "resource":
		if u, ok := rawjson.String(item, "resource", "uri"); ok {
			if m := fn(u); m != u {
				item, _ = rawjson.Replace(item, quote(m), "resource", "uri")
			}
		}
	case "resource_link":
		return mapMember(item, "uri", fn)
	}
	return item
}
