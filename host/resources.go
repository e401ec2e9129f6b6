package host

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/plughost/plughost/host/resourceuri"
	"github.com/plughost/plughost/lib/rawjson"
)

// Resource URIs on the aggregate endpoint (docs/gateway.md, "Resources"):
// a URI stays as the server wrote it when it tells its server apart — one
// server lists it, or, unlisted, one server's template matches it, or one
// server offers resources at all — and takes the per-server form
// plughost://<server>/<uri> (package resourceuri) otherwise. Both forms
// route back to the server; the per-server form always does. Templates
// stay as written unless another server's template matches what they
// expand to.

// resourceServers returns the servers that offer resources, in name order.
func (h *Host) resourceServers() []string {
	var out []string
	for _, name := range h.st().order {
		if c, ok := h.serverCaps(name); ok && c.Resources != nil {
			out = append(out, name)
		}
	}
	return out
}

// owners returns the servers a URI can belong to by the catalogs known now
// (none are listed here): the servers claiming it (claimants), else the
// only resource server.
func (r *relay) owners(uri string, servers []string) []string {
	if c := r.claimants(uri, servers); len(c) > 0 {
		return c
	}
	if len(servers) == 1 {
		return servers
	}
	return nil
}

// claimants returns the servers listing a URI, else those whose templates
// match it, by the catalogs known now.
func (r *relay) claimants(uri string, servers []string) []string {
	var listed, matched []string
	for _, s := range servers {
		l := r.catalog(s).cachedResources()
		if l == nil {
			continue
		}
		if l.uris[uri] {
			listed = append(listed, s)
		}
		for _, t := range l.compiled {
			if t.Match(uri) {
				matched = append(matched, s)
				break
			}
		}
	}
	if len(listed) > 0 {
		return listed
	}
	return matched
}

// clientURI is server's uri as an aggregate session sees it.
func (h *Host) clientURI(server, uri string) string {
	if o := h.relay.owners(uri, h.resourceServers()); len(o) == 1 && o[0] == server {
		return uri
	}
	return resourceuri.Encode(server, uri)
}

// clientTemplate is server's URI template as an aggregate session sees it:
// as written, unless what it expands to could be another server's.
func (h *Host) clientTemplate(server, tmpl string) string {
	sample := sampleExpansion(tmpl)
	for _, s := range h.resourceServers() {
		if s == server {
			continue
		}
		l := h.relay.catalog(s).cachedResources()
		if l == nil {
			continue
		}
		if l.tmplTexts[tmpl] || l.uris[sample] {
			return resourceuri.Encode(server, tmpl)
		}
		for _, t := range l.compiled {
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
func (h *Host) resolveURI(ctx context.Context, uri string) (string, string, error) {
	if server, own, ok := resourceuri.Decode(uri); ok {
		if _, known := h.Server(server); known {
			return server, own, nil
		}
		return "", "", &RPCError{Code: codeResourceNotFound, Message: fmt.Sprintf("resource %q: no server %q is running", uri, server)}
	}
	servers := h.listedResourceServers(ctx)
	if len(h.relay.claimants(uri, servers)) == 0 {
		// No server claims it: it may be one of a server starting for the
		// first time, whose resources are not known yet.
		waited, err := h.awaitStart(ctx, h.newcomers()...)
		if err != nil {
			return "", "", fmt.Errorf("resource %q: %w", uri, err)
		}
		if waited {
			servers = h.listedResourceServers(ctx)
		}
	}
	switch o := h.relay.owners(uri, servers); len(o) {
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
	servers := h.resourceServers()
	for _, s := range servers {
		if h.relay.catalog(s).cachedResources() == nil {
			if _, err := h.relay.catalog(s).resources(ctx, h, s); err != nil {
				h.relay.logger.Debug("listing resources to route a URI", "server", s, "error", err)
			}
		}
	}
	return servers
}

// listResources answers resources/list (or, with templates,
// resources/templates/list) for an aggregate session: every resource
// server's entries in one page, URIs as the session sees them. A server
// that fails is left out (and logged).
func (s *Session) listResources(ctx context.Context, templates bool) (json.RawMessage, error) {
	h := s.h
	servers := h.resourceServers()
	lists := make([]*resourceList, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Go(func() {
			l, err := h.relay.catalog(srv).resources(ctx, h, srv)
			if err != nil {
				h.relay.logger.Warn("listing resources failed; leaving the server out", "server", srv, "error", err)
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
	var b strings.Builder
	b.WriteString(`{"` + member + `":[`)
	n := 0
	for i, l := range lists {
		if l == nil {
			continue
		}
		items := l.resources
		if templates {
			items = l.templates
		}
		for _, it := range items {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			own, _ := rawjson.String(it, key)
			mapped := h.clientURI(servers[i], own)
			if templates {
				mapped = h.clientTemplate(servers[i], own)
			}
			if mapped != own {
				it, _ = rawjson.Replace(it, quote(mapped), key)
			}
			b.Write(it)
		}
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String()), nil
}

// readResource answers resources/read for an aggregate session.
func (s *Session) readResource(ctx context.Context, params json.RawMessage, opts CallOptions) (json.RawMessage, error) {
	uri, ok := rawjson.String(params, "uri")
	if !ok {
		return nil, &RPCError{Code: codeInvalidParams, Message: `resources/read: params must be {"uri": "<resource URI>"}`}
	}
	server, own, err := s.h.resolveURI(ctx, uri)
	if err != nil {
		return nil, err
	}
	if own != uri {
		params, _ = rawjson.Replace(params, quote(own), "uri")
	}
	raw, err := s.forward(ctx, "", server, "resources/read", params, opts)
	if err != nil {
		return nil, err
	}
	return mapEach(raw, []string{"contents"}, func(item []byte) []byte {
		return mapMember(item, "uri", func(u string) string { return s.h.clientURI(server, u) })
	}), nil
}

// subscription answers resources/subscribe and resources/unsubscribe:
// routed like a read for an aggregate session, as is for a server's.
func (s *Session) subscription(ctx context.Context, scope string, subscribe bool, params json.RawMessage) (json.RawMessage, error) {
	uri, ok := rawjson.String(params, "uri")
	if !ok {
		return nil, &RPCError{Code: codeInvalidParams, Message: `params must be {"uri": "<resource URI>"}`}
	}
	server, own := scope, uri
	if scope == "" {
		var err error
		if server, own, err = s.h.resolveURI(ctx, uri); err != nil {
			return nil, err
		}
	}
	r := s.h.relay
	if subscribe {
		return json.RawMessage("{}"), r.subscribe(ctx, s.id, server, own)
	}
	return json.RawMessage("{}"), r.unsubscribe(ctx, s.id, server, own)
}

// subscribe subscribes session to a server's resource; the server is asked
// once, for the first session.
func (r *relay) subscribe(ctx context.Context, session, server, uri string) error {
	k := subKey{server, uri}
	r.mu.Lock()
	set := r.subs[k]
	first := len(set) == 0
	if set == nil {
		set = map[string]bool{}
		r.subs[k] = set
	}
	set[session] = true
	r.mu.Unlock()
	if !first {
		return nil
	}
	srv, ok := r.h.Server(server)
	var err error
	if !ok {
		err = fmt.Errorf("server %q: %w", server, errServerNotRunning)
	} else {
		_, err = srv.Request(ctx, "resources/subscribe", uriParams(uri))
	}
	if err != nil {
		r.mu.Lock()
		delete(r.subs[k], session)
		if len(r.subs[k]) == 0 {
			delete(r.subs, k)
		}
		r.mu.Unlock()
	}
	return err
}

// unsubscribe ends session's subscription; the server is told when no
// session is left.
func (r *relay) unsubscribe(ctx context.Context, session, server, uri string) error {
	k := subKey{server, uri}
	r.mu.Lock()
	set := r.subs[k]
	delete(set, session)
	last := set != nil && len(set) == 0
	if last {
		delete(r.subs, k)
	}
	r.mu.Unlock()
	if !last {
		return nil
	}
	srv, ok := r.h.Server(server)
	if !ok {
		return nil
	}
	_, err := srv.Request(ctx, "resources/unsubscribe", uriParams(uri))
	return err
}

// resourceUpdated relays notifications/resources/updated to the sessions
// subscribed to the resource.
func (r *relay) resourceUpdated(server string, params json.RawMessage) {
	uri, ok := rawjson.String(params, "uri")
	if !ok {
		return
	}
	r.mu.Lock()
	var ts []target
	for id := range r.subs[subKey{server, uri}] {
		ts = append(ts, r.sessionTarget(id))
	}
	r.mu.Unlock()
	var mapped json.RawMessage
	for _, t := range ts {
		out := params
		if t.scope == "" {
			if mapped == nil {
				mapped = mapMember(params, "uri", func(u string) string { return r.h.clientURI(server, u) })
			}
			out = mapped
		}
		deliver(t, Notification{Server: server, Method: "notifications/resources/updated", Params: out})
	}
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
