package routing

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/plughost/plughost/host/resourceuri"
	"github.com/plughost/plughost/lib/rawjson"
)

// Resource URIs on the aggregate endpoint (docs/gateway.md, "Resources"):
// a URI stays as the server wrote it when it tells its server apart — one
// server lists it, or, unlisted, one server's template matches it, or one
// server offers resources at all — and takes the per-server form
// plughost://<server>/<uri> (package resourceuri) otherwise. Both forms
// route back to the server; the per-server form always does.

// ResourceServers returns the servers that offer resources, in name order.
func (r *Router) ResourceServers() []string {
	var out []string
	for _, name := range r.servers.Names() {
		if c, ok := r.servers.Capabilities(name); ok && c.Resources != nil {
			out = append(out, name)
		}
	}
	return out
}

// Owners returns the servers among servers a URI can belong to by the
// catalogs known now (none are listed here): the servers claiming it
// (Claimants), else the only resource server.
func (r *Router) Owners(uri string, servers []string) []string {
	if c := r.Claimants(uri, servers); len(c) > 0 {
		return c
	}
	if len(servers) == 1 {
		return servers
	}
	return nil
}

// Claimants returns the servers among servers listing a URI, else those
// whose templates match it, by the catalogs known now.
func (r *Router) Claimants(uri string, servers []string) []string {
	var listed, matched []string
	for _, s := range servers {
		l := r.CachedResources(s)
		if l == nil {
			continue
		}
		if l.URIs[uri] {
			listed = append(listed, s)
		}
		for _, t := range l.Compiled {
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

// ClientURI is server's uri as an aggregate session sees it.
func (r *Router) ClientURI(server, uri string) string {
	if o := r.Owners(uri, r.ResourceServers()); len(o) == 1 && o[0] == server {
		return uri
	}
	return resourceuri.Encode(server, uri)
}

// Subscribe subscribes session to a server's resource; the server is asked
// once, for the first session.
func (r *Router) Subscribe(ctx context.Context, session, server, uri string) error {
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
	srv, ok := r.servers.Server(server)
	var err error
	if !ok {
		err = fmt.Errorf("server %q: %w", server, ErrServerNotRunning)
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

// Unsubscribe ends session's subscription; the server is told when no
// session is left.
func (r *Router) Unsubscribe(ctx context.Context, session, server, uri string) error {
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
	srv, ok := r.servers.Server(server)
	if !ok {
		return nil
	}
	_, err := srv.Request(ctx, "resources/unsubscribe", uriParams(uri))
	return err
}

// resourceUpdated routes notifications/resources/updated to the sessions
// subscribed to the resource.
func (r *Router) resourceUpdated(server string, params json.RawMessage) {
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
				mapped = params
				if own := r.ClientURI(server, uri); own != uri {
					mapped, _ = rawjson.Replace(params, []byte(strconv.Quote(own)), "uri")
				}
			}
			out = mapped
		}
		deliver(t, Notification{Server: server, Method: "notifications/resources/updated", Params: out})
	}
}
