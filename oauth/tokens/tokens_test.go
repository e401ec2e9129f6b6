package tokens_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/internal/fakeclock"
	"github.com/plughost/plughost/internal/ownertest"
	"github.com/plughost/plughost/internal/testoauth"
	"github.com/plughost/plughost/oauth"
	"github.com/plughost/plughost/oauth/tokens"
	"github.com/plughost/plughost/pluginapi"
)

// fixture is a Manager over a store, with a log that tests search for tokens.
type fixture struct {
	store tokens.Store
	clock *fakeclock.Clock
	log   *bytes.Buffer
	m     *tokens.Manager
}

func newFixture(t *testing.T, store tokens.Store) *fixture {
	t.Helper()
	if store == nil {
		store = tokens.FileStore{Dir: filepath.Join(t.TempDir(), "oauth")}
	}
	f := &fixture{store: store, clock: fakeclock.New(time.Now()), log: &bytes.Buffer{}}
	logger := hclog.New(&hclog.LoggerOptions{Output: &lockedWriter{w: f.log}, Level: hclog.Trace})
	f.m = tokens.NewManager(tokens.Options{Store: store, Logger: logger, Now: f.clock.Now, PollInterval: 20 * time.Millisecond})
	return f
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// browser is a LoginOptions whose Prompt plays the browser.
func browser(t *testing.T) tokens.LoginOptions {
	return tokens.LoginOptions{Prompt: func(u string) error {
		status, err := testoauth.Browser(u)
		if err == nil && status != http.StatusOK {
			t.Errorf("callback page answered %d", status)
		}
		return err
	}}
}

func settings(s *testoauth.Server) tokens.Settings {
	return tokens.Settings{ServerURL: s.MCP, Transport: "http"}
}

func TestLoginAndAuthorization(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{ScopesSupported: []string{"read"}})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	if st := c.Status(context.Background()); st.LoggedIn || !st.NeedsLogin || st.Reason != "not logged in" {
		t.Fatalf("status before login: %+v", st)
	}
	if a, err := c.Authorization(context.Background()); err != nil || a.Value != "" {
		t.Fatalf("Authorization before login = %v, %v; want none", a, err)
	}
	st, err := c.Login(context.Background(), browser(t))
	if err != nil {
		t.Fatal(err)
	}
	if !st.LoggedIn || st.NeedsLogin || !slices.Equal(st.Scopes, []string{"read"}) || !st.Refreshable || st.Issuer != s.Issuer() {
		t.Errorf("status after login: %+v", st)
	}
	a, err := c.Authorization(context.Background())
	if err != nil || a.Value != "Bearer at-1" || a.CacheFor < 50*time.Minute || a.CacheFor > time.Hour {
		t.Errorf("Authorization = %v (%q), %v; want at-1 reusable for about an hour", a, a.Value, err)
	}
	if scope := s.Authorizations()[0].Get("scope"); scope != "read" {
		t.Errorf("scope asked %q, want scopes_supported %q", scope, "read")
	}
	path := tokens.FileStore{}.Path("remote")
	fs := f.store.(tokens.FileStore)
	info, err := os.Stat(fs.Path("remote"))
	if err != nil {
		t.Fatal(err)
	}
	ownertest.Private(t, fs.Path("remote"))
	dir, _ := os.Stat(fs.Dir)
	if runtime.GOOS != "windows" && (info.Mode().Perm() != 0o600 || dir.Mode().Perm() != 0o700) { // a Windows directory keeps the ACL it inherits
		t.Errorf("token file mode %v, dir %v; want 0600 and 0700", info.Mode().Perm(), dir.Mode().Perm())
	}
	if filepath.Base(path) != "remote.json" {
		t.Errorf("file name %q", filepath.Base(path))
	}
	assertNoTokens(t, f.log.String())
}

func assertNoTokens(t *testing.T, text string) {
	t.Helper()
	for _, secret := range []string{"at-", "rt-", "secret-dyn"} {
		if strings.Contains(text, secret) {
			t.Errorf("%q appears in:\n%s", secret, text)
		}
	}
}

func TestRefreshBeforeExpiry(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{ExpiresIn: 600})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(9 * time.Minute) // within a minute of expiry: refresh now
	a, err := c.Authorization(context.Background())
	if err != nil || a.Value != "Bearer at-2" {
		t.Fatalf("Authorization near expiry = %q, %v; want the refreshed at-2", a.Value, err)
	}
	forms, _ := s.TokenRequests()
	if last := forms[len(forms)-1]; last.Get("grant_type") != "refresh_token" || last.Get("refresh_token") != "rt-1" {
		t.Errorf("last token request %v, want a refresh with rt-1", last)
	}
	// Another manager (another process) sees the refreshed token in the store.
	other := tokens.NewManager(tokens.Options{Store: f.store}).For("remote", settings(s))
	if a, _ := other.Authorization(context.Background()); a.Value != "Bearer at-2" {
		t.Errorf("another process reads %q, want at-2", a.Value)
	}
	assertNoTokens(t, f.log.String())
}

func TestRefusedTokenRefreshed(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	a, err := c.Rejected(context.Background(), pluginapi.Rejection{Status: 401, Sent: "Bearer at-1",
		WWWAuthenticate: []string{`Bearer error="invalid_token"`}})
	if err != nil || a.Value != "Bearer at-2" {
		t.Fatalf("Rejected(401 of at-1) = %q, %v; want the refreshed at-2", a.Value, err)
	}
	// A refusal of the value already replaced is answered with the new one, without a refresh.
	a, err = c.Rejected(context.Background(), pluginapi.Rejection{Status: 401, Sent: "Bearer at-1"})
	if err != nil || a.Value != "Bearer at-2" {
		t.Fatalf("Rejected(401 of stale at-1) = %q, %v; want at-2", a.Value, err)
	}
	if forms, _ := s.TokenRequests(); len(forms) != 2 {
		t.Errorf("%d token requests, want 2 (login, one refresh)", len(forms))
	}
	if c.Refusals() != 0 {
		t.Errorf("Refusals = %d, want 0: every refusal was answered", c.Refusals())
	}
}

func TestRevokedRefreshNeedsLogin(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	s.RevokeRefreshTokens()
	_, err := c.Rejected(context.Background(), pluginapi.Rejection{Status: 401, Sent: "Bearer at-1"})
	if pluginapi.KindOf(err) != pluginapi.KindUnauthorized || !strings.Contains(err.Error(), `server "remote" needs login: the refresh token was refused`) ||
		!strings.Contains(err.Error(), "plughost mcp login remote") {
		t.Fatalf("got %v; want an unauthorized error naming the server, the reason and the fix", err)
	}
	st := c.Status(context.Background())
	if st.LoggedIn || !st.NeedsLogin || c.Refusals() != 1 {
		t.Errorf("status %+v, refusals %d; want needs login, 1 refusal", st, c.Refusals())
	}
	if a, _ := c.Authorization(context.Background()); a.Value != "" {
		t.Errorf("the refused token is still handed out")
	}
	// The supervisor waits for a login, which happens meanwhile.
	waited := make(chan error, 1)
	go func() { waited <- c.WaitLogin(context.Background()) }()
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitLogin did not return after the login")
	}
	assertNoTokens(t, f.log.String())
}

func TestStepUp(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	f := newFixture(t, nil)
	c := f.m.For("remote", tokens.Settings{ServerURL: s.MCP, Transport: "http", Scopes: []string{"read"}})
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Rejected(context.Background(), pluginapi.Rejection{Status: 403, Sent: "Bearer at-1",
		WWWAuthenticate: []string{`Bearer error="insufficient_scope", scope="read write", resource_metadata="` + s.PRMURL() + `"`}})
	if pluginapi.KindOf(err) != pluginapi.KindUnauthorized || !strings.Contains(err.Error(), "more scope") {
		t.Fatalf("step-up refusal: %v", err)
	}
	st := c.Status(context.Background())
	if !st.LoggedIn || !st.NeedsLogin || !slices.Equal(st.WantScopes, []string{"read", "write"}) {
		t.Errorf("status %+v; want still logged in, needing a login for read write", st)
	}
	if a, _ := c.Authorization(context.Background()); a.Value != "Bearer at-1" {
		t.Errorf("the token stops being used for what it allows: %q", a.Value)
	}
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	auths := s.Authorizations()
	if got := auths[len(auths)-1].Get("scope"); got != "read write" {
		t.Errorf("step-up login asked for %q, want %q", got, "read write")
	}
	if st := c.Status(context.Background()); st.NeedsLogin || !slices.Equal(st.Scopes, []string{"read", "write"}) {
		t.Errorf("status after step-up login %+v", st)
	}
	// The server insists on a scope already granted: a login would not help.
	_, err = c.Rejected(context.Background(), pluginapi.Rejection{Status: 403, Sent: "Bearer at-2",
		WWWAuthenticate: []string{`Bearer error="insufficient_scope", scope="write"`}})
	if err == nil || !strings.Contains(err.Error(), "which was granted; a new login may not help") {
		t.Errorf("refusal for a granted scope: %v", err)
	}
	if got := c.Status(context.Background()).WantScopes; !slices.Equal(got, []string{"read", "write"}) {
		t.Errorf("want scopes %q: nothing new to ask for", got)
	}
}

// A step-up login made by another process (`plughost mcp login` beside a
// running serve) counts at the next refusal: the serve's refused token is
// answered with the new one from the store, without waiting for a poll.
func TestStepUpLoginElsewhere(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{ScopesSupported: []string{"read"}})
	serve := newFixture(t, nil)
	serve.m = tokens.NewManager(tokens.Options{Store: serve.store, Now: serve.clock.Now, PollInterval: time.Hour})
	c := serve.m.For("remote", settings(s))
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	stepUp := pluginapi.Rejection{Status: 403, Sent: "Bearer at-1",
		WWWAuthenticate: []string{`Bearer error="insufficient_scope", scope="read write"`}}
	if _, err := c.Rejected(context.Background(), stepUp); pluginapi.KindOf(err) != pluginapi.KindUnauthorized {
		t.Fatalf("step-up refusal: %v", err)
	}

	cli := tokens.NewManager(tokens.Options{Store: serve.store}).For("remote", settings(s))
	if _, err := cli.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	if got := s.Authorizations()[1].Get("scope"); got != "read write" {
		t.Errorf("the other process's login asked for %q, want the step-up's \"read write\"", got)
	}
	a, err := c.Rejected(context.Background(), stepUp)
	if err != nil || a.Value != "Bearer at-2" {
		t.Fatalf("refusal of the old token after a login elsewhere = %q, %v; want the new token", a.Value, err)
	}
	if st := c.Status(context.Background()); st.NeedsLogin || !slices.Equal(st.Scopes, []string{"read", "write"}) {
		t.Errorf("status after the login elsewhere: %+v", st)
	}
}

func TestChallengeScopeAndNoBrowser(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{ChallengeScope: "mcp:basic", ScopesSupported: []string{"other"}})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	opts := tokens.LoginOptions{
		Prompt: func(string) error { return nil }, // --no-browser: only printed
	}
	var authURL string
	opts.Prompt = func(u string) error { authURL = u; return nil }
	opts.Paste = func(context.Context) (string, error) { return testoauth.RedirectOf(authURL) }
	if _, err := c.Login(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := s.Authorizations()[0].Get("scope"); got != "mcp:basic" {
		t.Errorf("scope %q; the challenge's scope goes before scopes_supported", got)
	}
}

func TestPreRegisteredClientAndIssuerOverride(t *testing.T) {
	named := testoauth.Start(t, testoauth.Options{})
	as := testoauth.Start(t, testoauth.Options{IssuerPath: "/corp", NoRegistration: true,
		Clients: map[string]string{"pre": "pre-secret"}, AuthMethods: []string{"client_secret_basic"}})
	f := newFixture(t, nil)
	c := f.m.For("remote", tokens.Settings{ServerURL: named.MCP, Transport: "http", ClientID: "pre", ClientSecret: "pre-secret", Issuer: as.Issuer()})
	st, err := c.Login(context.Background(), browser(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Issuer != as.Issuer() || len(as.Authorizations()) != 1 || len(named.Authorizations()) != 0 {
		t.Errorf("logged in at %s; want the configured issuer %s", st.Issuer, as.Issuer())
	}
	if _, auth := as.TokenRequests(); !strings.HasPrefix(auth[0], "Basic ") {
		t.Errorf("token request Authorization %q; want client_secret_basic", auth[0])
	}
	assertNoTokens(t, f.log.String())
	if strings.Contains(f.log.String(), "pre-secret") {
		t.Errorf("the client secret appears in the log")
	}
}

func TestRegisteredClientReused(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	for range 2 {
		if _, err := c.Logout(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Login(context.Background(), browser(t)); err != nil {
			t.Fatal(err)
		}
	}
	if regs := strings.Count(strings.Join(s.Requests(), "\n"), "POST /register"); regs != 2 {
		t.Errorf("%d registrations; logout forgets the client, so 2", regs)
	}
	// A second login without logout reuses the registration.
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	if regs := strings.Count(strings.Join(s.Requests(), "\n"), "POST /register"); regs != 2 {
		t.Errorf("%d registrations after a re-login, want the client reused", regs)
	}
}

func TestTokenEndpointTimeout(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{ExpiresIn: 600})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	s.HangTokenEndpoint()
	f.clock.Advance(9*time.Minute + 30*time.Second) // refresh due, token not expired
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	a, err := c.Authorization(ctx)
	cancel()
	if err != nil || a.Value != "Bearer at-1" || a.CacheFor != 0 {
		t.Errorf("refresh timed out before expiry: %q (cache %s), %v; want at-1 kept, asked again next time", a.Value, a.CacheFor, err)
	}
	f.clock.Advance(time.Minute) // now expired
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = c.Authorization(ctx)
	cancel()
	if err == nil || !strings.Contains(err.Error(), `server "remote"`) || !strings.Contains(err.Error(), "refresh the access token") {
		t.Errorf("refresh timed out after expiry: %v; want an error naming the server and step", err)
	}
	if st := c.Status(context.Background()); !st.LoggedIn || st.NeedsLogin {
		t.Errorf("a timeout is not a refused login: %+v", st)
	}
}

func TestLoginInAnotherProcess(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	store := tokens.FileStore{Dir: t.TempDir()}
	serve := newFixture(t, store).m.For("remote", settings(s))
	if _, err := serve.Rejected(context.Background(), pluginapi.Rejection{Status: 401,
		WWWAuthenticate: []string{`Bearer scope="read", resource_metadata="` + s.PRMURL() + `"`}}); err == nil {
		t.Fatal("a refusal without a login was answered")
	}
	waited := make(chan error, 1)
	go func() { waited <- serve.WaitLogin(context.Background()) }()
	cli := newFixture(t, store).m.For("remote", settings(s))
	if st := cli.Status(context.Background()); !st.NeedsLogin || !slices.Equal(st.WantScopes, []string{"read"}) {
		t.Errorf("the CLI does not see what serve recorded: %+v", st)
	}
	if _, err := cli.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	if got := s.Authorizations()[0].Get("scope"); got != "read" {
		t.Errorf("login asked for %q; want the scope serve's challenge named", got)
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not notice the login made by another process")
	}
	if a, _ := serve.Authorization(context.Background()); a.Value != "Bearer at-1" {
		t.Errorf("serve sends %q after the login elsewhere", a.Value)
	}
}

func TestLoginErrors(t *testing.T) {
	other := testoauth.Start(t, testoauth.Options{})
	cases := []struct {
		name string
		opts testoauth.Options
		want string
	}{
		{"metadata not JSON", testoauth.Options{MetadataBody: "oops"}, "read the authorization server metadata"},
		{"issuer mismatch", testoauth.Options{MetadataIssuer: other.Issuer()}, "claims another's name"},
		{"no registration and no client id", testoauth.Options{NoRegistration: true}, "set oauth.client_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testoauth.Start(t, tc.opts)
			f := newFixture(t, nil)
			c := f.m.For("remote", settings(s))
			_, err := c.Login(context.Background(), browser(t))
			var se *oauth.StepError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), `server "remote": log in: `) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v; want a step error naming the server and %q", err, tc.want)
			}
			if _, err := os.Stat(f.store.(tokens.FileStore).Path("remote")); !os.IsNotExist(err) {
				t.Errorf("a failed login left a token file (%v)", err)
			}
		})
	}
}

func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	fs := tokens.FileStore{Dir: filepath.Join(dir, "oauth")}
	ctx := context.Background()
	g := &tokens.Grant{ServerURL: "https://x/mcp", AccessToken: "at-secret", Scopes: []string{"a"}}
	for _, name := range []string{"plain", "my.server", "../escape", "a/b", "émoji"} {
		if err := fs.Save(ctx, name, g); err != nil {
			t.Fatalf("save %q: %v", name, err)
		}
		if filepath.Dir(fs.Path(name)) != fs.Dir {
			t.Errorf("server %q is stored outside the dir: %s", name, fs.Path(name))
		}
		back, err := fs.Load(ctx, name)
		if err != nil || back.AccessToken != "at-secret" || back.ServerURL != g.ServerURL {
			t.Errorf("load %q: %+v, %v", name, back, err)
		}
	}
	if fs.Path("a.b") == fs.Path("a_b") || fs.Path("a/b") == fs.Path("a%2Fb") {
		t.Errorf("two names share a file")
	}
	if g, err := fs.Load(ctx, "missing"); g != nil || err != nil {
		t.Errorf("missing grant: %v, %v; want nil, nil", g, err)
	}
	os.WriteFile(fs.Path("damaged"), []byte("{not json"), 0o600)
	if _, err := fs.Load(ctx, "damaged"); err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "plughost mcp login damaged") {
		t.Errorf("damaged file: %v", err)
	}
	// A write that cannot complete leaves the old file and no temp file: on
	// Unix into a read-only directory. Windows ignores a directory's
	// read-only attribute, but refuses to replace a file another handle
	// holds open without FILE_SHARE_DELETE (as os.Open does) for longer
	// than Save waits.
	blocked, unblock := "a read-only dir", func() { os.Chmod(fs.Dir, 0o700) }
	if runtime.GOOS == "windows" {
		r, err := os.Open(fs.Path("plain"))
		if err != nil {
			t.Fatal(err)
		}
		blocked, unblock = "a file held open", func() { r.Close() }
	} else if err := os.Chmod(fs.Dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer unblock()
	if os.Geteuid() != 0 { // root ignores directory permissions
		if err := fs.Save(ctx, "plain", &tokens.Grant{ServerURL: "https://y"}); err == nil {
			t.Errorf("save into %s succeeded", blocked)
		}
		back, _ := fs.Load(ctx, "plain")
		if back == nil || back.ServerURL != "https://x/mcp" {
			t.Errorf("the old grant is gone after a failed save: %+v", back)
		}
	}
	unblock()
	entries, _ := os.ReadDir(fs.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") { // a temporary file: Path writes '.' as %2E
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if err := fs.Delete(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	if err := fs.Delete(ctx, "plain"); err != nil {
		t.Errorf("deleting twice: %v", err)
	}
}

func TestGrantFileNotUnderStoreDirWhenDirIsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, nil, 0o600)
	err := tokens.FileStore{Dir: file}.Save(context.Background(), "s", &tokens.Grant{})
	if err == nil || !strings.Contains(err.Error(), "token directory") {
		t.Errorf("got %v; want an error about the token directory", err)
	}
}

// TestRefusedAfterRefresh: a server that refuses the token refreshed for it
// too gets no second refresh: the server needs a login, and says why.
func TestRefusedAfterRefresh(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{})
	f := newFixture(t, nil)
	c := f.m.For("remote", settings(s))
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	a, err := c.Rejected(context.Background(), pluginapi.Rejection{Status: 401, Sent: "Bearer at-1"})
	if err != nil || a.Value != "Bearer at-2" {
		t.Fatalf("first refusal: %q, %v; want a refresh", a.Value, err)
	}
	_, err = c.Rejected(context.Background(), pluginapi.Rejection{Status: 401, Sent: "Bearer at-2",
		WWWAuthenticate: []string{`Bearer error="invalid_token"`}})
	if err == nil || !strings.Contains(err.Error(), "refused a freshly refreshed token too") {
		t.Fatalf("refusal of the refreshed token: %v", err)
	}
	if forms, _ := s.TokenRequests(); len(forms) != 2 {
		t.Errorf("%d token requests, want 2: no second refresh", len(forms))
	}
	if st := c.Status(context.Background()); !st.NeedsLogin || st.LoggedIn {
		t.Errorf("status %+v", st)
	}
	// Much later, a refusal of a refreshed token is an expiry again: refresh.
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	if a, err := c.Rejected(context.Background(), pluginapi.Rejection{Status: 401, Sent: "Bearer at-3"}); err != nil || a.Value != "Bearer at-4" {
		t.Fatalf("refusal after a new login: %q, %v", a.Value, err)
	}
	f.clock.Advance(2 * time.Hour)
	if a, err := c.Rejected(context.Background(), pluginapi.Rejection{Status: 401, Sent: "Bearer at-4"}); err != nil || a.Value != "Bearer at-5" {
		t.Errorf("refusal of a refreshed token two hours later: %q, %v; want another refresh", a.Value, err)
	}
}

// TestLoginSSE: for a legacy SSE server the login asks the event stream for
// the challenge.
func TestLoginSSE(t *testing.T) {
	s := testoauth.Start(t, testoauth.Options{SSE: true, ChallengeScope: "events"})
	f := newFixture(t, nil)
	c := f.m.For("remote", tokens.Settings{ServerURL: s.MCP, Transport: "sse"})
	if _, err := c.Login(context.Background(), browser(t)); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Requests(), "GET /sse") {
		t.Errorf("the login did not ask the event stream: %v", s.Requests())
	}
	if got := s.Authorizations()[0].Get("scope"); got != "events" {
		t.Errorf("scope %q, want the stream's challenge scope", got)
	}
}

// Retain forgets the credentials of servers gone from the config: For of
// such a name makes new ones, while the kept servers keep theirs.
func TestRetainForgetsRemovedServers(t *testing.T) {
	m := tokens.NewManager(tokens.Options{Store: tokens.FileStore{Dir: t.TempDir()}})
	set := tokens.Settings{ServerURL: "https://example.test/mcp", Transport: "http"}
	kept, gone := m.For("kept", set), m.For("gone", set)
	m.Retain([]string{"kept", "never-made"})
	if m.For("kept", set) != kept {
		t.Error("a retained server got new credentials")
	}
	if m.For("gone", set) == gone {
		t.Error("a server left out of Retain kept its credentials")
	}
}

// Client ID metadata documents: a configured URL is the client id where the
// authorization server supports documents; without one plughost registers
// a client and says so, and an authorization server that accepts documents
// but has no registration endpoint gets an error saying what to set.
func TestClientIDMetadataDocument(t *testing.T) {
	const doc = "https://tools.example.com/plughost.json"
	s := testoauth.Start(t, testoauth.Options{ClientIDMetadataDocuments: true})
	f := newFixture(t, nil)
	var notes []string
	opts := browser(t)
	opts.Note = func(n string) { notes = append(notes, n) }
	withDoc := f.m.For("doc", tokens.Settings{ServerURL: s.MCP, Transport: "http", ClientMetadataURL: doc})
	if _, err := withDoc.Login(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := s.Authorizations()[0].Get("client_id"); got != doc || len(notes) != 0 {
		t.Errorf("client_id %q, notes %q; want the document URL and no note", got, notes)
	}
	if _, err := f.m.For("dcr", settings(s)).Login(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "supports client ID metadata documents; plughost registered a client instead") {
		t.Errorf("notes %q; want one saying a client was registered instead of using a document", notes)
	}

	closed := testoauth.Start(t, testoauth.Options{ClientIDMetadataDocuments: true, NoRegistration: true})
	_, err := f.m.For("closed", settings(closed)).Login(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "no registration endpoint but accepts client ID metadata documents") ||
		!strings.Contains(err.Error(), "set oauth.client_metadata_url") {
		t.Errorf("login without registration or document: %v", err)
	}
}

// TestMemoryStore checks the in-memory store an embedder may pass as
// host.Options.TokenStore: it keeps copies, and deleting none is no error.
func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	var m tokens.MemoryStore
	if g, err := m.Load(ctx, "a"); g != nil || err != nil {
		t.Fatalf("empty store: Load = %v, %v; want nil, nil", g, err)
	}
	g := &tokens.Grant{ServerURL: "https://a.example/mcp", Scopes: []string{"read"}}
	if err := m.Save(ctx, "a", g); err != nil {
		t.Fatal(err)
	}
	g.Scopes[0] = "changed"
	got, err := m.Load(ctx, "a")
	if err != nil || got == nil || got.ServerURL != g.ServerURL || !slices.Equal(got.Scopes, []string{"read"}) {
		t.Fatalf("Load = %+v, %v; want the grant as saved", got, err)
	}
	got.Scopes[0] = "changed"
	if again, _ := m.Load(ctx, "a"); again.Scopes[0] != "read" {
		t.Errorf("a loaded grant shares memory with the stored one")
	}
	for range 2 {
		if err := m.Delete(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if g, _ := m.Load(ctx, "a"); g != nil {
		t.Errorf("after Delete: Load = %+v, want nil", g)
	}
}
