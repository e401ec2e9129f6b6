package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/host/tokens"
)

// DefaultTokenDir is where the OAuth logins of servers are kept, under the
// user's home: one 0600 file per server.
func DefaultTokenDir(home string) string { return filepath.Join(home, ".plughost", "oauth") }

// newAuth makes the token manager of the host: tokens in store, else in
// DefaultTokenDir of the user's home.
func newAuth(store tokens.Store, logger hclog.Logger) *tokens.Manager {
	if store == nil {
		dir := ""
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			dir = DefaultTokenDir(home)
		}
		store = tokens.FileStore{Dir: dir}
	}
	return tokens.NewManager(tokens.Options{Store: store, Logger: logger.Named("oauth")})
}

// oauthSettings are the tokens settings of a server entry with an oauth
// block, or false when it has none (or is not a remote server).
func oauthSettings(srv config.Server) (tokens.Settings, bool) {
	t := srv.Transport()
	if srv.OAuth == nil || (t != config.TransportSSE && t != config.TransportHTTP) {
		return tokens.Settings{}, false
	}
	o := srv.OAuth
	return tokens.Settings{ServerURL: srv.URL.Reveal(), Transport: t, ClientID: o.ClientID, ClientSecret: o.ClientSecret,
		ClientMetadataURL: o.ClientMetadataURL, Issuer: o.Issuer, Scopes: o.Scopes, CallbackPort: o.CallbackPort}, true
}

// addCredentials registers the OAuth login of a valid server entry with an
// oauth block (enabled or not: a disabled server can be logged in to).
func (h *Host) addCredentials(name string, srv config.Server, problem error) *tokens.Credentials {
	s, ok := oauthSettings(srv)
	if !ok || problem != nil {
		return nil
	}
	c := h.auth.For(name, s)
	h.creds[name] = c
	return c
}

// withAuth adds the login state of an OAuth server to its status.
func (h *Host) withAuth(st supervisor.Status) supervisor.Status {
	if c, ok := h.creds[st.Name]; ok {
		a := c.Status(context.Background())
		st.Auth = &a
	}
	return st
}

// Login logs in to an OAuth server through the browser flow (opts says how
// the user is shown the URL) and stores the tokens; a server waiting for
// the login connects by itself.
func (h *Host) Login(ctx context.Context, name string, opts tokens.LoginOptions) (tokens.Status, error) {
	c, err := h.credentials(name)
	if err != nil {
		return tokens.Status{}, err
	}
	return c.Login(ctx, opts)
}

// Logout forgets a server's OAuth tokens; it reports whether there were any.
func (h *Host) Logout(ctx context.Context, name string) (bool, error) {
	c, err := h.credentials(name)
	if err != nil {
		return false, err
	}
	return c.Logout(ctx)
}

// AuthStatus returns the login state of an OAuth server.
func (h *Host) AuthStatus(ctx context.Context, name string) (tokens.Status, bool) {
	c, ok := h.creds[name]
	if !ok {
		return tokens.Status{}, false
	}
	return c.Status(ctx), true
}

func (h *Host) credentials(name string) (*tokens.Credentials, error) {
	if c, ok := h.creds[name]; ok {
		return c, nil
	}
	srv, known := h.cfg.MCP.Servers[name]
	switch {
	case !known:
		return nil, fmt.Errorf("no server named %q in the config", name)
	case srv.OAuth == nil:
		return nil, fmt.Errorf(`server %q has no "oauth" in its config; add "oauth": {} to %s to log in with OAuth`, name, config.ServerPath(name))
	}
	if st, ok := h.inactive[name]; ok && st.State == supervisor.StateInvalid {
		return nil, fmt.Errorf("server %q: fix its config first: %s", name, st.LastError)
	}
	return nil, fmt.Errorf("server %q: OAuth applies to sse and http servers only", name)
}
