package tokens

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/oauth"
)

// LoginOptions are the front end's part of a login.
type LoginOptions struct {
	// Prompt shows the user the authorization URL: it opens a browser
	// and/or prints the URL. Required.
	Prompt func(authURL string) error
	// Paste, when set, returns the URL the browser was sent back to, as the
	// user pasted it (for a machine without a browser). The first of it and
	// the loopback callback to bring an answer wins; a Paste that fails
	// (no input) leaves the callback to answer.
	Paste func(ctx context.Context) (string, error)
	// Callback, when set, receives the browser's redirect instead of a
	// loopback listener of the login's own: a front end that already
	// serves HTTP (serve's /oauth/callback, see oauth.Inbox) passes one,
	// and the redirect URI is its.
	Callback Callback
	// Note, when set, is told what the user should know about how the
	// login went beyond its result (a sentence, no secrets): e.g. that the
	// authorization server supports client ID metadata documents but a
	// client was registered because none is configured.
	Note func(string)
}

// Callback receives one authorization response (oauth.Callback, the
// loopback listener, and oauth.Inbox's receivers implement it).
type Callback interface {
	// RedirectURI is where the authorization server sends the browser.
	RedirectURI() string
	// Start begins accepting the response for state.
	Start(state string)
	// Wait returns the response's code, or ctx's error.
	Wait(ctx context.Context) (string, error)
	// Close stops receiving.
	Close() error
}

var (
	_ Callback = (*oauth.Callback)(nil)
	_ Callback = (*oauth.Receiver)(nil)
)

// probeTimeout bounds the request that asks the server for its challenge.
const probeTimeout = 30 * time.Second

// Login runs the authorization-code flow for the server and stores the
// tokens: discovery (starting from the challenge the server last sent, or
// one it is asked for now), a client (configured, a metadata document URL,
// the one registered before, or a new registration), the browser step
// through opts, and the token exchange. Scopes: the configured ones (plus a
// step-up's), else those the server's challenge named, else the resource's
// scopes_supported, else none.
func (c *Credentials) Login(ctx context.Context, opts LoginOptions) (Status, error) {
	if opts.Prompt == nil {
		return Status{}, errors.New("tokens: Login needs a Prompt")
	}
	c.loginMu.Lock()
	defer c.loginMu.Unlock()
	fail := func(err error) (Status, error) {
		return c.Status(ctx), fmt.Errorf("server %q: log in: %w", c.name, err)
	}
	g := c.reload(ctx)
	var need *Need
	challenge := oauth.Challenge{}
	if g != nil && g.NeedsLogin != nil {
		need = g.NeedsLogin
		challenge = oauth.Challenge{Scopes: need.Scopes, ResourceMetadata: need.ResourceMetadata}
	} else {
		var err error
		if challenge, err = c.probe(ctx); err != nil {
			return fail(err)
		}
	}
	d, err := c.m.client.Discover(ctx, oauth.DiscoverRequest{ServerURL: c.settings.ServerURL, Challenge: challenge, Issuer: c.settings.Issuer})
	if err != nil {
		return fail(err)
	}
	cb := opts.Callback
	if cb == nil {
		loopback, err := c.listen(g, d)
		if err != nil {
			return fail(err)
		}
		cb = loopback
	}
	defer cb.Close()
	client, err := c.client(ctx, g, d, cb.RedirectURI(), opts.Note)
	if err != nil {
		return fail(err)
	}
	a, err := oauth.Authorize(oauth.AuthRequest{Metadata: d.Metadata, Client: clientInfo(client), RedirectURI: cb.RedirectURI(),
		Scopes: c.scopes(need, challenge, d), Resource: d.Resource})
	if err != nil {
		return fail(err)
	}
	cb.Start(a.State)
	if err := opts.Prompt(a.URL); err != nil {
		return fail(err)
	}
	code, err := waitCode(ctx, cb, a.State, opts.Paste)
	if err != nil {
		return fail(&oauth.StepError{Step: "receive the authorization response", Err: err})
	}
	tok, err := c.m.client.Exchange(ctx, a, code)
	if err != nil {
		return fail(err)
	}
	next := &Grant{ServerURL: c.settings.ServerURL, Issuer: d.Issuer, TokenEndpoint: d.Metadata.TokenEndpoint, Resource: d.Resource,
		Client: client, AccessToken: secret.String(tok.AccessToken), RefreshToken: secret.String(tok.RefreshToken),
		TokenType: tok.TokenType, Expiry: expiryOf(tok, c.now()), ObtainedAt: c.now(), Scopes: tok.Scopes}
	if err := c.save(ctx, next); err != nil {
		return fail(fmt.Errorf("store the tokens: %w", err))
	}
	c.log.Info("logged in", "scopes", strings.Join(next.Scopes, " "), "expires", next.Expiry)
	return statusOf(next), nil
}

// Logout forgets the server's tokens and client registration. It reports
// whether there was a login to forget.
func (c *Credentials) Logout(ctx context.Context) (bool, error) {
	c.loginMu.Lock()
	defer c.loginMu.Unlock()
	g := c.reload(ctx)
	if err := c.m.opts.Store.Delete(ctx, c.name); err != nil {
		return false, fmt.Errorf("server %q: log out: %w", c.name, err)
	}
	c.mu.Lock()
	c.set(nil)
	c.mu.Unlock()
	return g.hasToken(), nil
}

// listen opens the loopback callback: on the configured port, else on the
// port a client registered before was given (so it can be reused), else on
// any free port.
func (c *Credentials) listen(g *Grant, d *oauth.Discovery) (*oauth.Callback, error) {
	if c.settings.CallbackPort != 0 {
		return oauth.ListenCallback(c.settings.CallbackPort)
	}
	if g != nil && g.Client.Registered && g.Issuer == d.Issuer {
		if u, err := url.Parse(g.Client.RedirectURI); err == nil {
			if port, err := strconv.Atoi(u.Port()); err == nil {
				if cb, err := oauth.ListenCallback(port); err == nil {
					return cb, nil
				}
			}
		}
	}
	return oauth.ListenCallback(0)
}

// client picks who logs in, in the order the MCP specification gives: the
// configured (pre-registered) client; the client ID metadata document URL
// where the server supports those; the client registered before for this
// issuer and redirect URI; or a newly registered one. A metadata document
// must be published at an https URL the client controls, which plughost on
// a user's machine cannot do by itself: without a configured URL, a server
// that supports documents gets a registration, and note is told so.
func (c *Credentials) client(ctx context.Context, g *Grant, d *oauth.Discovery, redirect string, note func(string)) (Client, error) {
	s := c.settings
	cimd := d.Metadata.ClientIDMetadataDocumentSupported
	switch {
	case s.ClientID != "":
		return Client{ID: s.ClientID, Secret: s.ClientSecret, RedirectURI: redirect,
			AuthMethod: oauth.AuthMethodFor(d.Metadata, s.ClientSecret != "")}, nil
	case s.ClientMetadataURL != "" && cimd:
		return Client{ID: s.ClientMetadataURL, AuthMethod: oauth.AuthNone, RedirectURI: redirect}, nil
	case g != nil && g.Client.Registered && g.Issuer == d.Issuer && g.Client.RedirectURI == redirect:
		return g.Client, nil
	case cimd && d.Metadata.RegistrationEndpoint == "":
		return Client{}, &oauth.StepError{Step: "register a client (dynamic client registration)", Err: fmt.Errorf(
			"the authorization server offers no registration endpoint but accepts client ID metadata documents: %s; "+
				"or set oauth.client_id (and oauth.client_secret) to a client registered with it", cimdHint)}
	}
	info, err := c.m.client.Register(ctx, d.Metadata, oauth.RegisterRequest{ClientName: c.m.opts.ClientName, RedirectURI: redirect})
	if err != nil {
		return Client{}, err
	}
	if cimd && note != nil {
		note(fmt.Sprintf("the authorization server %s supports client ID metadata documents; "+
			"plughost registered a client instead, as no oauth.client_metadata_url is set (to use a document, %s)", d.Issuer, cimdHint))
	}
	return Client{ID: info.ID, Secret: secret.String(info.Secret), AuthMethod: info.AuthMethod, RedirectURI: redirect, Registered: true}, nil
}

// cimdHint says how to use a client ID metadata document.
const cimdHint = "publish one describing plughost at an https URL and set oauth.client_metadata_url to it " +
	"(`plughost mcp add <name> --url URL --oauth-client-metadata-url DOCUMENT-URL`)"

// scopes chooses the scopes of a login.
func (c *Credentials) scopes(need *Need, challenge oauth.Challenge, d *oauth.Discovery) []string {
	var needed []string
	if need != nil {
		needed = need.Scopes
	}
	switch {
	case len(c.settings.Scopes) > 0:
		return union(c.settings.Scopes, needed)
	case len(needed) > 0:
		return needed
	case len(challenge.Scopes) > 0:
		return challenge.Scopes
	}
	return d.ScopesSupported
}

// waitCode waits for the authorization code from the callback or the paste.
func waitCode(ctx context.Context, cb Callback, state string, paste func(context.Context) (string, error)) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		code string
		err  error
	}
	results := make(chan result, 2)
	go func() {
		code, err := cb.Wait(ctx)
		results <- result{code, err}
	}()
	if paste != nil {
		go func() {
			pasted, err := paste(ctx)
			if err != nil {
				return // no input: the callback may still answer
			}
			code, err := oauth.ParseRedirect(pasted, state)
			results <- result{code, err}
		}()
	}
	r := <-results
	return r.code, r.err
}

// probe asks the server which authorization it wants: a request without a
// token, whose 401 (or 403) challenge names the resource metadata and the
// scopes. A session the request opened is ended at once.
func (c *Credentials) probe(ctx context.Context) (oauth.Challenge, error) {
	const step = "ask the server for its authorization challenge"
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := c.probeRequest(ctx)
	if err != nil {
		return oauth.Challenge{}, &oauth.StepError{Step: step, Err: err}
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return oauth.Challenge{}, &oauth.StepError{Step: step, Err: err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && resp.StatusCode < 300 {
		c.endSession(ctx, sid)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return oauth.ParseChallenge(resp.Header.Values("WWW-Authenticate")), nil
	}
	return oauth.Challenge{}, nil
}

func (c *Credentials) probeRequest(ctx context.Context) (*http.Request, error) {
	if c.settings.Transport == "sse" {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.settings.ServerURL, nil)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
		}
		return req, err
	}
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},` +
		`"clientInfo":{"name":"plughost","version":"login"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.settings.ServerURL, strings.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	return req, err
}

// endSession deletes a session the probe opened (best effort).
func (c *Credentials) endSession(ctx context.Context, sid string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.settings.ServerURL, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := c.httpClient().Do(req); err == nil {
		resp.Body.Close()
	}
}

func (c *Credentials) httpClient() *http.Client {
	if c.m.opts.HTTP != nil {
		return c.m.opts.HTTP
	}
	return http.DefaultClient
}
