package host

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/access"
	"github.com/plughost/plughost/host/registry"
)

// Named clients (tools.mcp.gateway.clients) each have a token of their own
// and see only the servers and tools their entry allows. The rule is
// access.Rule; the host asks it at every door (see Session), and reads it
// from the config in force at each request, so an edit applies to open
// sessions at once and a removed client's sessions stop working.

// ErrClientGone: the configured client a session belongs to was removed
// from the config (or the session's server left the client's scope), so
// the session no longer works.
var ErrClientGone = errors.New("the client of this session is no longer configured or may no longer use its server")

// NewClientToken returns a new random client token (256 bits, base64url)
// and the hex sha256 digest to store in tools.mcp.gateway.clients.
func NewClientToken() (token, digest string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, TokenDigest(token)
}

// TokenDigest returns the hex sha256 digest of token, as stored in a
// client's token_sha256.
func TokenDigest(token string) string {
	d := sha256.Sum256([]byte(token))
	return hex.EncodeToString(d[:])
}

// ClientOfToken returns the configured client whose token is token, by
// the config in force now (a rotation or removal applies at the next
// request). Every client's digest is compared in constant time.
func (h *Host) ClientOfToken(token string) (string, bool) {
	got := sha256.Sum256([]byte(token))
	found := ""
	clients := h.st().cfg.MCP.Gateway.Clients
	for _, name := range slices.Sorted(maps.Keys(clients)) {
		want, err := hex.DecodeString(clients[name].TokenSHA256.Reveal())
		if err == nil && subtle.ConstantTimeCompare(got[:], want) == 1 && found == "" {
			found = name
		}
	}
	return found, found != ""
}

// ClientRule returns the visibility rule of a client: access.Everything
// for "" (the administrator, an embedding agent), the rule of its entry in
// tools.mcp.gateway.clients otherwise, or ErrClientGone when there is no
// such entry.
func (h *Host) ClientRule(client string) (access.Rule, error) {
	if client == "" {
		return access.Everything(), nil
	}
	c, ok := h.st().cfg.MCP.Gateway.Clients[client]
	if !ok {
		return access.Rule{}, fmt.Errorf("client %q: %w", client, ErrClientGone)
	}
	return access.Limited(c.Servers, c.IncludeTools, c.ExcludeTools), nil
}

// checkClient refuses a session of a client that is gone, or scoped to a
// server the client may not use.
func (h *Host) checkClient(client, scope string) (access.Rule, error) {
	rule, err := h.ClientRule(client)
	if err != nil {
		return rule, err
	}
	if scope != "" && !rule.AllowsServer(scope) {
		return rule, fmt.Errorf("client %q, server %q: %w", client, scope, ErrClientGone)
	}
	return rule, nil
}

// access returns the session's scope and the rule of its client, as the
// config says now.
func (s *Session) access(ctx context.Context) (string, access.Rule, error) {
	scope, err := s.scopeOf(ctx)
	if err != nil {
		return "", access.Rule{}, err
	}
	rule, err := s.h.checkClient(s.client, scope)
	return scope, rule, err
}

// Client returns the configured client the session belongs to ("" for the
// administrator and embedding agents; see SessionRecord.ClientName).
func (s *Session) Client(ctx context.Context) (string, error) {
	if _, err := s.scopeOf(ctx); err != nil {
		return "", err
	}
	return s.client, nil
}

// allowedTools returns the tools of tools that rule allows: tools itself
// when it allows all of them.
func allowedTools(tools []registry.Tool, rule access.Rule) []registry.Tool {
	if !rule.IsLimited() {
		return tools
	}
	out := make([]registry.Tool, 0, len(tools))
	for _, t := range tools {
		if t.Server == "" || rule.Allows(t.Server, t.Name) { // plughost's own tools (search, paging) have no server
			out = append(out, t)
		}
	}
	return out
}

// allowedServers returns the servers of servers that rule allows.
func allowedServers(servers []string, rule access.Rule) []string {
	if !rule.IsLimited() {
		return servers
	}
	var out []string
	for _, s := range servers {
		if rule.AllowsServer(s) {
			out = append(out, s)
		}
	}
	return out
}

// setToolFilters gives the registry every server's include_tools and
// exclude_tools from cfg (prev: the config before, nil at start), so a
// reload hides or shows tools without restarting the server. It reports
// whether any filter changed.
func (h *Host) setToolFilters(prev, cfg *config.Config) bool {
	changed := false
	if prev != nil {
		for name := range prev.MCP.Servers {
			if _, ok := cfg.MCP.Servers[name]; !ok {
				changed = h.registry.SetFilter(name, access.Filter{}) || changed
			}
		}
	}
	for name, s := range cfg.MCP.Servers {
		changed = h.registry.SetFilter(name, access.Filter{Include: s.IncludeTools, Exclude: s.ExcludeTools}) || changed
	}
	return changed
}

// serverOfNameFor is serverOfName for a client: a server it may not use is
// never named (its tools are as unknown to it as a made-up name).
func (h *Host) serverOfNameFor(name string, rule access.Rule) string {
	if server := h.serverOfName(name); rule.AllowsServer(server) {
		return server
	}
	return ""
}
