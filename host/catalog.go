package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/plughost/plughost/host/resourceuri"
	"github.com/plughost/plughost/lib/rawjson"
)

// serverCatalog is what plughost knows of one server's resources, resource
// templates and prompts: the entries of its last complete lists, raw. They
// route URIs and prompt names, and answer lists while the server announces
// its changes (list_changed); a server that does not announce changes is
// listed again for every client list. Safe for concurrent use.
type serverCatalog struct {
	mu        sync.Mutex
	res       *resourceList // nil: never listed, or changed since
	prompts   []promptEntry // nil: never listed, or changed since
	listedRes bool          // res holds a list (possibly empty)
	listedPr  bool
}

// resourceList is a server's resources and templates.
type resourceList struct {
	resources []json.RawMessage
	uris      map[string]bool
	templates []json.RawMessage
	compiled  []*resourceuri.Template // the templates that compile, for routing
	tmplTexts map[string]bool         // every uriTemplate as written
}

// promptEntry is a prompt definition and its name.
type promptEntry struct {
	name string
	raw  json.RawMessage
}

// catalog returns server's catalog. A server that is not running gets an
// empty catalog that is not kept (see relay.forgetServer).
func (r *relay) catalog(server string) *serverCatalog {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.catalogs[server]
	if c == nil {
		c = &serverCatalog{}
		if r.runs(server) {
			r.catalogs[server] = c
		}
	}
	return c
}

func (c *serverCatalog) invalidate() {
	c.invalidateResources()
	c.invalidatePrompts()
}

func (c *serverCatalog) invalidateResources() {
	c.mu.Lock()
	c.listedRes = false
	c.mu.Unlock()
}

func (c *serverCatalog) invalidatePrompts() {
	c.mu.Lock()
	c.listedPr = false
	c.mu.Unlock()
}

// cachedResources returns the last resource list, even a stale one (for
// routing without a round trip); nil when never listed.
func (c *serverCatalog) cachedResources() *resourceList {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.res
}

// resources returns the server's resources and templates, listing them
// unless a list is known and the server announces changes.
func (c *serverCatalog) resources(ctx context.Context, h *Host, server string) (*resourceList, error) {
	caps, _ := h.serverCaps(server)
	c.mu.Lock()
	if c.listedRes && caps.Resources != nil && caps.Resources.ListChanged {
		defer c.mu.Unlock()
		return c.res, nil
	}
	c.mu.Unlock()
	items, err := listAll(ctx, h, server, "resources/list", "resources")
	if err != nil {
		return nil, err
	}
	tmpls, err := listAll(ctx, h, server, "resources/templates/list", "resourceTemplates")
	var re *RPCError
	if errors.As(err, &re) && re.Code == codeMethodNotFound {
		tmpls, err = nil, nil // a server without templates
	}
	if err != nil {
		return nil, err
	}
	l := &resourceList{resources: items, uris: map[string]bool{}, templates: tmpls, tmplTexts: map[string]bool{}}
	for _, it := range items {
		if uri, ok := rawjson.String(it, "uri"); ok {
			l.uris[uri] = true
		}
	}
	for _, it := range tmpls {
		if t, ok := rawjson.String(it, "uriTemplate"); ok {
			l.tmplTexts[t] = true
			if ct, err := resourceuri.CompileTemplate(t); err == nil {
				l.compiled = append(l.compiled, ct)
			}
		}
	}
	c.mu.Lock()
	c.res, c.listedRes = l, true
	c.mu.Unlock()
	return l, nil
}

// prompts returns the server's prompts, listing them unless a list is
// known and the server announces changes.
func (c *serverCatalog) promptList(ctx context.Context, h *Host, server string) ([]promptEntry, error) {
	caps, _ := h.serverCaps(server)
	c.mu.Lock()
	if c.listedPr && caps.Prompts != nil && caps.Prompts.ListChanged {
		defer c.mu.Unlock()
		return c.prompts, nil
	}
	c.mu.Unlock()
	items, err := listAll(ctx, h, server, "prompts/list", "prompts")
	if err != nil {
		return nil, err
	}
	entries := make([]promptEntry, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		if name, ok := rawjson.String(it, "name"); ok && name != "" && !seen[name] {
			seen[name] = true
			entries = append(entries, promptEntry{name: name, raw: it})
		}
	}
	c.mu.Lock()
	c.prompts, c.listedPr = entries, true
	c.mu.Unlock()
	return entries, nil
}

// cachedPrompts returns the last prompt list, even a stale one.
func (c *serverCatalog) cachedPrompts() []promptEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prompts
}

// listAll lists every page of a list method and returns the raw entries of
// member (pages are bounded like tools/list).
func listAll(ctx context.Context, h *Host, server, method, member string) ([]json.RawMessage, error) {
	srv, ok := h.Server(server)
	if !ok {
		return nil, fmt.Errorf("server %q: %w", server, errServerNotRunning)
	}
	var all []json.RawMessage
	cursor := ""
	for page := 1; ; page++ {
		if page > maxListPages {
			return nil, fmt.Errorf("server %q: %s: more than %d pages; the server keeps answering with a nextCursor", server, method, maxListPages)
		}
		var params json.RawMessage
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor}) // a string always encodes
		}
		raw, err := srv.Request(ctx, method, params)
		if err != nil {
			return nil, err
		}
		var res struct {
			NextCursor string `json:"nextCursor"`
		}
		start, end, ok := rawjson.Member(raw, member)
		if err := json.Unmarshal(raw, &res); err != nil || !ok {
			return nil, fmt.Errorf("server %q: %s: the answer has no %q list", server, method, member)
		}
		valid := rawjson.ScanElements(rawjson.View(raw[start:end]), func(s, e int) bool {
			all = append(all, raw[start+s:start+e:start+e])
			return true
		})
		if !valid {
			return nil, fmt.Errorf("server %q: %s: %q is not a list", server, method, member)
		}
		if res.NextCursor == "" || res.NextCursor == cursor {
			return all, nil
		}
		cursor = res.NextCursor
	}
}

// maxListPages bounds the pages of one list, so a server answering with a
// cursor forever cannot keep plughost listing.
const maxListPages = 1000
