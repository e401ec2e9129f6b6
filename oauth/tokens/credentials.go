package tokens

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/oauth"
	"github.com/plughost/plughost/pluginapi"
)

// Credentials are one server's login. They implement pluginapi.Credentials
// for its transport, and tell the supervisor when the server waits for a
// login. Safe for concurrent use.
type Credentials struct {
	name     string
	settings Settings
	m        *Manager
	log      hclog.Logger

	mu         sync.Mutex
	grant      *Grant
	loadErr    error
	loaded     bool
	loadedAt   time.Time
	changed    chan struct{} // closed and replaced when the grant changes
	refusals   uint64        // refusals answered with "log in"
	reissued   string        // bearer value of a token refreshed because the server refused the previous one …
	reissuedAt time.Time     // … and when

	refreshMu sync.Mutex // one refresh at a time
	loginMu   sync.Mutex // one login at a time
}

// reissueWindow is how soon after a refresh answering a refusal a refusal
// of the new token means the server will not take these tokens at all
// (refreshing again would loop) rather than that it expired.
const reissueWindow = time.Minute

// noExpiryCache is how long a token without a stated expiry is reused
// before the transport asks again (so a login elsewhere is picked up).
const noExpiryCache = 5 * time.Minute

var _ pluginapi.Credentials = (*Credentials)(nil)

func (c *Credentials) now() time.Time { return c.m.opts.Now() }

// Authorization returns the current access token as a header value,
// refreshing it first when it is about to expire. With no token it returns
// an empty value: the request goes without, and the server's refusal
// (Rejected) records that a login is needed.
func (c *Credentials) Authorization(ctx context.Context) (pluginapi.Authorization, error) {
	g := c.current(ctx)
	if !g.hasToken() {
		return pluginapi.Authorization{}, nil
	}
	if now := c.now(); g.fresh(now) {
		return c.value(g, now), nil
	}
	return c.refresh(ctx, g.bearer(), false)
}

// value is g's token with how long the transport may reuse it: until the
// refresh margin before its expiry.
func (c *Credentials) value(g *Grant, now time.Time) pluginapi.Authorization {
	a := pluginapi.Authorization{Value: g.bearer(), CacheFor: noExpiryCache}
	if !g.Expiry.IsZero() {
		a.CacheFor = max(0, g.Expiry.Add(-g.refreshMargin()).Sub(now))
	}
	return a
}

// Rejected handles the server's refusal of a request: a 401 for the token
// in use is answered with a refreshed token when there is a refresh token;
// otherwise — no token, a refused refresh, or a 403 asking for more scope
// (step-up) — the server is marked "needs login" (with the scopes to ask
// for) and the answer is a KindUnauthorized error saying so. The store is
// read first, so that a login made meanwhile by another process (`plughost
// mcp login` beside a serve) answers the refusal with its token at once.
func (c *Credentials) Rejected(ctx context.Context, r pluginapi.Rejection) (pluginapi.Authorization, error) {
	ch := oauth.ParseChallenge(r.WWWAuthenticate)
	g := c.reload(ctx)
	now := c.now()
	if g.hasToken() && r.Sent != g.bearer() && g.fresh(now) && g.NeedsLogin == nil {
		return c.value(g, now), nil // the refused value was replaced meanwhile
	}
	if r.Status == 403 && ch.InsufficientScope() {
		return pluginapi.Authorization{}, c.stepUp(ctx, g, ch)
	}
	c.mu.Lock()
	reissued := r.Sent != "" && r.Sent == c.reissued && now.Sub(c.reissuedAt) < reissueWindow
	c.mu.Unlock()
	if r.Status == 401 && r.Sent != "" && g.hasToken() && r.Sent == g.bearer() && g.RefreshToken != "" && !reissued {
		a, err := c.refresh(ctx, r.Sent, true)
		if err == nil {
			c.mu.Lock()
			c.reissued, c.reissuedAt = a.Value, now
			c.mu.Unlock()
		}
		return a, err
	}
	answer := fmt.Sprintf("HTTP %d", r.Status)
	if ch.Error != "" {
		answer += ", " + ch.Error
	}
	reason := "not logged in"
	switch {
	case reissued:
		// Refreshing again would only loop: the server does not take this
		// authorization server's tokens (wrong issuer, resource or scopes?).
		reason = fmt.Sprintf("the server refused a freshly refreshed token too (%s); check its oauth settings", answer)
	case r.Sent != "":
		reason = fmt.Sprintf("the server refused the token (%s)", answer)
	}
	return pluginapi.Authorization{}, c.needLogin(ctx, g, &Need{Reason: reason, Scopes: ch.Scopes, ResourceMetadata: ch.ResourceMetadata}, true)
}

// stepUp records a 403 insufficient_scope: the next login asks for the
// scopes granted plus those the server names. The token stays in use for
// what it already allows.
func (c *Credentials) stepUp(ctx context.Context, g *Grant, ch oauth.Challenge) error {
	var granted []string
	if g != nil {
		granted = g.Scopes
	}
	want := union(granted, ch.Scopes)
	reason := fmt.Sprintf("the server asks for more scope: %s", strings.Join(ch.Scopes, " "))
	if len(ch.Scopes) > 0 && len(want) == len(granted) {
		reason = fmt.Sprintf("the server refuses the token for lack of scope %s, which was granted; a new login may not help",
			strings.Join(ch.Scopes, " "))
	}
	return c.needLogin(ctx, g, &Need{Reason: reason, Scopes: want, ResourceMetadata: ch.ResourceMetadata}, false)
}

// refresh gets a new access token with the refresh token, unless another
// request (or process) already replaced stale. force refreshes even a token
// that has not expired (the server refused it).
func (c *Credentials) refresh(ctx context.Context, stale string, force bool) (pluginapi.Authorization, error) {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	g := c.reload(ctx)
	now := c.now()
	switch {
	case !g.hasToken():
		return pluginapi.Authorization{}, nil
	case g.bearer() != stale && g.fresh(now):
		return c.value(g, now), nil
	case g.RefreshToken == "" && (force || g.expired(now)):
		return pluginapi.Authorization{}, c.needLogin(ctx, g, &Need{Reason: "the access token expired and the server granted no refresh token"}, true)
	case g.RefreshToken == "":
		return pluginapi.Authorization{Value: g.bearer()}, nil
	}
	tok, err := c.m.client.Refresh(ctx, oauth.RefreshRequest{TokenEndpoint: g.TokenEndpoint,
		Client: clientInfo(g.Client), RefreshToken: g.RefreshToken.Reveal(), Scopes: g.Scopes})
	if err != nil {
		return c.refreshFailed(ctx, g, err, force)
	}
	next := g.clone()
	next.AccessToken, next.TokenType, next.Expiry, next.ObtainedAt, next.Scopes =
		secret.String(tok.AccessToken), tok.TokenType, expiryOf(tok, now), now, tok.Scopes
	if tok.RefreshToken != "" {
		next.RefreshToken = secret.String(tok.RefreshToken)
	}
	if err := c.save(ctx, next); err != nil {
		c.log.Warn("refreshed the access token but could not store it", "error", err)
	}
	c.log.Debug("access token refreshed", "expires", next.Expiry)
	return c.value(next, now), nil
}

// refreshFailed decides what a failed refresh means: a refused refresh
// token needs a login (unless another process refreshed meanwhile); a
// network failure keeps a token that has not expired yet.
func (c *Credentials) refreshFailed(ctx context.Context, g *Grant, err error, force bool) (pluginapi.Authorization, error) {
	now := c.now()
	if oauth.IsInvalidGrant(err) {
		if again := c.reload(ctx); again.hasToken() && again.bearer() != g.bearer() && again.fresh(now) {
			return c.value(again, now), nil
		}
		g.RefreshToken = ""
		return pluginapi.Authorization{}, c.needLogin(ctx, g, &Need{Reason: "the refresh token was refused (revoked or expired)"}, true)
	}
	if !force && !g.expired(now) {
		c.log.Warn("refreshing the access token failed; using it until it expires", "error", err)
		return pluginapi.Authorization{Value: g.bearer()}, nil
	}
	return pluginapi.Authorization{}, pluginapi.Errorf("credentials", pluginapi.KindConnect, "server %q: %v", c.name, err)
}

// needLogin records need (dropping the access token when dropToken) and
// returns the error that tells the user.
func (c *Credentials) needLogin(ctx context.Context, g *Grant, need *Need, dropToken bool) error {
	next := g.clone()
	if next == nil {
		next = &Grant{ServerURL: c.settings.ServerURL}
	}
	known := next.NeedsLogin != nil && next.NeedsLogin.Reason == need.Reason &&
		slices.Equal(next.NeedsLogin.Scopes, need.Scopes) && (!dropToken || next.AccessToken == "")
	if !known {
		need.At = c.now()
		next.NeedsLogin = need
		if dropToken {
			next.AccessToken = ""
		}
		if err := c.save(ctx, next); err != nil {
			c.log.Warn("could not store that the server needs a login", "error", err)
		}
		c.log.Warn("server needs login", "reason", need.Reason, "scopes", strings.Join(need.Scopes, " "))
	}
	c.mu.Lock()
	c.refusals++
	c.mu.Unlock()
	return c.unauthorized(need)
}

func (c *Credentials) unauthorized(need *Need) error {
	msg := fmt.Sprintf("server %q needs login: %s; run `plughost mcp login %s`", c.name, need.Reason, c.name)
	if len(need.Scopes) > 0 {
		msg += fmt.Sprintf(" (it will ask for scope %s)", strings.Join(need.Scopes, " "))
	}
	return pluginapi.Errorf("credentials", pluginapi.KindUnauthorized, "%s", msg)
}

// Refusals counts the refusals answered with "log in" so far. A supervisor
// compares it before and after a connection attempt to tell a failure that
// waits for the user from one that a retry may fix.
func (c *Credentials) Refusals() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refusals
}

// WaitLogin returns once the server has a token it has not refused — after
// a login in this process, or in another one (the store is re-read every
// PollInterval) — or when ctx ends.
func (c *Credentials) WaitLogin(ctx context.Context) error {
	t := time.NewTicker(c.m.opts.PollInterval)
	defer t.Stop()
	for {
		c.mu.Lock()
		ready, changed := c.grant.usable(), c.changed
		c.mu.Unlock()
		if ready {
			return nil
		}
		select {
		case <-changed:
		case <-t.C:
			c.reload(ctx)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Status returns the login state, safe to show.
func (c *Credentials) Status(ctx context.Context) Status {
	g := c.current(ctx)
	st := statusOf(g)
	c.mu.Lock()
	if c.loadErr != nil {
		st.Error = c.loadErr.Error()
	}
	c.mu.Unlock()
	return st
}

// current returns a copy of the grant, reading the store when it was never
// read, or when there is no usable token and the last read is older than
// PollInterval (a login may have happened in another process).
func (c *Credentials) current(ctx context.Context) *Grant {
	c.mu.Lock()
	stale := !c.loaded || (!c.grant.usable() && c.now().Sub(c.loadedAt) >= c.m.opts.PollInterval)
	g := c.grant.clone()
	c.mu.Unlock()
	if stale {
		return c.reload(ctx)
	}
	return g
}

// reload reads the grant from the store. A grant for another URL (the
// server's url changed) counts as none.
func (c *Credentials) reload(ctx context.Context) *Grant {
	g, err := c.m.opts.Store.Load(ctx, c.name)
	if err == nil && g != nil && g.ServerURL != c.settings.ServerURL {
		g = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loaded, c.loadedAt, c.loadErr = true, c.now(), err
	if err != nil {
		return c.grant.clone() // keep what we had
	}
	c.set(g)
	return g.clone()
}

// save stores g and makes it current.
func (c *Credentials) save(ctx context.Context, g *Grant) error {
	err := c.m.opts.Store.Save(ctx, c.name, g)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loaded, c.loadedAt = true, c.now()
	c.set(g.clone())
	return err
}

// set replaces the grant (c.mu held), waking WaitLogin when it changed.
func (c *Credentials) set(g *Grant) {
	before := c.grant
	c.grant = g
	if before.usable() != g.usable() || before.bearer() != g.bearer() || (before == nil) != (g == nil) {
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

func clientInfo(cl Client) oauth.ClientInfo {
	return oauth.ClientInfo{ID: cl.ID, Secret: cl.Secret.Reveal(), AuthMethod: cl.AuthMethod}
}

// union is a followed by the elements of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// expiryOf is when tok expires by the manager's clock.
func expiryOf(tok *oauth.Token, now time.Time) time.Time {
	if tok.ExpiresIn > 0 {
		return now.Add(tok.ExpiresIn)
	}
	return tok.Expiry
}
