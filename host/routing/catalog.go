package routing

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
	res       *ResourceList // nil: never listed, or changed since
	prompts   []PromptEntry // nil: never listed, or changed since
	listedRes bool          // res holds a list (possibly empty)
	listedPr  bool
}

// ResourceList is a server's resources and templates, as it listed them.
type ResourceList struct {
	// Resources are the entries of resources/list, raw.
	Resources []json.RawMessage
	// URIs holds the uri of every resource.
	URIs map[string]bool
	// Templates are the entries of resources/templates/list, raw.
	Templates []json.RawMessage
	// Compiled are the templates that compile, for routing.
	Compiled []*resourceuri.Template
	// TemplateTexts holds every uriTemplate as written.
	TemplateTexts map[string]bool
}

// PromptEntry is a prompt definition and its name.
type PromptEntry struct {
	// Name is the prompt's name at its server.
	Name string
	// Raw is the definition as the server listed it.
	Raw json.RawMessage
}

// catalog returns server's catalog. A server that is not running gets an
// empty catalog that is not kept (see Router.ForgetServer).
func (r *Router) catalog(server string) *serverCatalog {
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
func (c *serverCatalog) cachedResources() *ResourceList {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.res
}

// CachedResources returns server's last resource list, even a stale one
// (for routing without a round trip); nil when never listed.
func (r *Router) CachedResources(server string) *ResourceList {
	return r.catalog(server).cachedResources()
}

// Resources returns server's resources and templates, listing them unless
// a list is known and the server announces changes.
func (r *Router) Resources(ctx context.Context, server string) (*ResourceList, error) {
	return r.catalog(server).resources(ctx, r, server)
}

// resources returns the server's resources and templates, listing them
// unless a list is known and the server announces changes.
func (c *serverCatalog) resources(ctx context.Context, r *Router, server string) (*ResourceList, error) {
	caps, _ := r.servers.Capabilities(server)
	c.mu.Lock()
	if c.listedRes && caps.Resources != nil && caps.Resources.ListChanged {
		defer c.mu.Unlock()
		return c.res, nil
	}
	c.mu.Unlock()
	items, err := r.ListAll(ctx, server, "resources/list", "resources")
	if err != nil {
		return nil, err
	}
	tmpls, err := r.ListAll(ctx, server, "resources/templates/list", "resourceTemplates")
	var re *RPCError
	if errors.As(err, &re) && re.Code == codeMethodNotFound {
		tmpls, err = nil, nil // a server without templates
	}
	if err != nil {
		return nil, err
	}
	l := &ResourceList{Resources: items, URIs: map[string]bool{}, Templates: tmpls, TemplateTexts: map[string]bool{}}
	for _, it := range items {
		if uri, ok := rawjson.String(it, "uri"); ok {
			l.URIs[uri] = true
		}
	}
	for _, it := range tmpls {
		if t, ok := rawjson.String(it, "uriTemplate"); ok {
			l.TemplateTexts[t] = true
			if ct, err := resourceuri.CompileTemplate(t); err == nil {
				l.Compiled = append(l.Compiled, ct)
			}
		}
	}
	c.mu.Lock()
	c.res, c.listedRes = l, true
	c.mu.Unlock()
	return l, nil
}

// Prompts returns server's prompts, listing them unless a list is known
// and the server announces changes.
func (r *Router) Prompts(ctx context.Context, server string) ([]PromptEntry, error) {
	return r.catalog(server).promptList(ctx, r, server)
}

// CachedPrompts returns server's last prompt list, even a stale one.
func (r *Router) CachedPrompts(server string) []PromptEntry {
	return r.catalog(server).cachedPrompts()
}

// promptList returns the server's prompts, listing them unless a list is
// known and the server announces changes.
func (c *serverCatalog) promptList(ctx context.Context, r *Router, server string) ([]PromptEntry, error) {
	caps, _ := r.servers.Capabilities(server)
	c.mu.Lock()
	if c.listedPr && caps.Prompts != nil && caps.Prompts.ListChanged {
		defer c.mu.Unlock()
		return c.prompts, nil
	}
	c.mu.Unlock()
	items, err := r.ListAll(ctx, server, "prompts/list", "prompts")
	if err != nil {
		return nil, err
	}
	entries := make([]PromptEntry, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		if name, ok := rawjson.String(it, "name"); ok && name != "" && !seen[name] {
			seen[name] = true
			entries = append(entries, PromptEntry{Name: name, Raw: it})
		}
	}
	c.mu.Lock()
	c.prompts, c.listedPr = entries, true
	c.mu.Unlock()
	return entries, nil
}

// cachedPrompts returns the last prompt list, even a stale one.
func (c *serverCatalog) cachedPrompts() []PromptEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prompts
}

// ListAll lists every page of a list method of server and returns the raw
// entries of member (pages are bounded like tools/list).
func (r *Router) ListAll(ctx context.Context, server, method, member string) ([]json.RawMessage, error) {
	srv, ok := r.servers.Server(server)
	if !ok {
		return nil, fmt.Errorf("server %q: %w", server, ErrServerNotRunning)
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
