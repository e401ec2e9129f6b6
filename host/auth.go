package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/oauth/tokens"
)

// DefaultTokenDir is where the OAuth logins of servers are kept, under the
// user's home: one 0600 file per server.
func DefaultTokenDir(home string) string { return filepath.Join(home, ".plughost", "oauth") }

var _ supervisor.Auth = (*tokens.Credentials)(nil)

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

// oauthKey identifies a server's OAuth settings (a digest): a reload that
// changes them restarts the server with new credentials.
type oauthKey string

func keyOf(s tokens.Settings) oauthKey {
	b, _ := json.Marshal(struct { // plain values always encode
		Settings tokens.Settings
		Secret   string // Settings marshals the client secret masked
	}{s, s.ClientSecret.Reveal()})
	sum := sha256.Sum256(b)
	return oauthKey(hex.EncodeToString(sum[:]))
}

// addCredentials registers in st the OAuth login of a valid server entry
// with an oauth block (enabled or not: a disabled server can be logged in
// to) and returns it with the key of its settings.
func (h *Host) addCredentials(st *setup, name string, srv config.Server, problems []*config.ValidationError) (oauthKey, *tokens.Credentials) {
	s, ok := oauthSettings(srv)
	if !ok || len(problems) > 0 {
		return "", nil
	}
	c := h.auth.For(name, s)
	st.creds[name] = c
	return keyOf(s), c
}

// withAuth adds the login state of an OAuth server to its status.
func (st *setup) withAuth(status supervisor.Status) supervisor.Status {
	if c, ok := st.creds[status.Name]; ok {
		a := c.Status(context.Background())
		status.Auth = &a
	}
	return status
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
	c, ok := h.st().creds[name]
	if !ok {
		return tokens.Status{}, false
	}
	return c.Status(ctx), true
}

func (h *Host) credentials(name string) (*tokens.Credentials, error) {
	cur := h.st()
	if c, ok := cur.creds[name]; ok {
		return c, nil
	}
	srv, known := cur.cfg.MCP.Servers[name]
	switch {
	case !known:
		return nil, fmt.Errorf("no server named %q in the config", name)
	case srv.OAuth == nil:
		return nil, fmt.Errorf(`server %q has no "oauth" in its config; add "oauth": {} to %s to log in with OAuth`, name, config.ServerPath(name))
	}
	if st, ok := cur.inactive[name]; ok && st.State == supervisor.StateInvalid {
		return nil, fmt.Errorf("server %q: fix its config first: %s", name, st.LastError)
	}
	return nil, fmt.Errorf("server %q: OAuth applies to sse and http servers only", name)
}

// loginTimeout bounds a login started by StartLogin: the user has that
// long to finish in the browser.
const loginTimeout = 10 * time.Minute

// StartLogin begins logging in to an OAuth server whose browser step ends
// on a front end's own route (cb, e.g. an oauth.Inbox receiver of serve's
// /oauth/callback): it returns the authorization URL to open as soon as the
// flow has one, and the login completes in the background (within 10
// minutes) when the browser comes back. Then the tokens are stored, the
// server connects by itself and Changed fires. A new StartLogin of the same
// server abandons the previous one.
func (h *Host) StartLogin(ctx context.Context, name string, cb tokens.Callback) (string, error) {
	c, err := h.credentials(name)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	parent := h.runCtx
	if parent == nil {
		parent = context.Background()
	}
	if prev := h.logins[name]; prev != nil {
		prev.cancel()
	}
	lctx, cancel := context.WithTimeout(parent, loginTimeout)
	if h.logins == nil {
		h.logins = map[string]*pendingLogin{}
	}
	l := &pendingLogin{cancel: cancel}
	h.logins[name] = l
	h.mu.Unlock()
	urls, failed := make(chan string, 1), make(chan error, 1)
	go func() {
		defer h.endLogin(name, l)
		_, err := c.Login(lctx, tokens.LoginOptions{Callback: cb, Prompt: func(u string) error {
			urls <- u
			return nil
		}})
		if err != nil {
			h.logger.Warn("login not completed", "server", name, "error", err)
			failed <- err
		}
		h.notify()
	}()
	select {
	case u := <-urls:
		return u, nil
	case err := <-failed:
		return "", err
	case <-ctx.Done():
		cancel()
		return "", ctx.Err()
	}
}

// pendingLogin is a login StartLogin runs.
type pendingLogin struct{ cancel context.CancelFunc }

// endLogin ends l and forgets it, unless a newer login of the server took
// its place.
func (h *Host) endLogin(name string, l *pendingLogin) {
	l.cancel()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.logins[name] == l {
		delete(h.logins, name)
	}
}
