package httppolicy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/pluginapi"
)

// fakeCredentials hands out tokens "Bearer t1", "Bearer t2", … : Rejected
// moves to the next one until limit, then fails with KindUnauthorized.
type fakeCredentials struct {
	cacheFor time.Duration
	limit    int

	mu       sync.Mutex
	n        int
	asked    int
	rejected []pluginapi.Rejection
}

func (f *fakeCredentials) current() string { return "Bearer t" + string(rune('0'+f.n)) }

func (f *fakeCredentials) Authorization(context.Context) (pluginapi.Authorization, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	if f.n == 0 {
		f.n = 1
	}
	return pluginapi.Authorization{Value: f.current(), CacheFor: f.cacheFor}, nil
}

func (f *fakeCredentials) Rejected(_ context.Context, r pluginapi.Rejection) (pluginapi.Authorization, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rejected = append(f.rejected, r)
	if f.n >= f.limit {
		return pluginapi.Authorization{}, pluginapi.Errorf("credentials", pluginapi.KindUnauthorized, "log in again")
	}
	f.n++
	return pluginapi.Authorization{Value: f.current(), CacheFor: f.cacheFor}, nil
}

// tokenServer accepts the tokens in valid and records what each request carried.
type tokenServer struct {
	mu     sync.Mutex
	valid  map[string]bool
	status int // the refusal: 401 (default) or 403 with insufficient_scope
	seen   []string
	bodies []string
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	auth := r.Header.Get("Authorization")
	s.seen = append(s.seen, auth)
	s.bodies = append(s.bodies, string(body))
	ok := s.valid[auth]
	status := s.status
	s.mu.Unlock()
	switch {
	case ok:
		io.WriteString(w, "ok")
	case status == http.StatusForbidden:
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="a b"`)
		w.WriteHeader(http.StatusForbidden)
	default:
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
	}
}

func (s *tokenServer) received() ([]string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...), append([]string(nil), s.bodies...)
}

func TestCredentials(t *testing.T) {
	cases := []struct {
		name       string
		valid      []string
		status     int
		limit      int
		configured map[string]string
		wantOK     bool
		wantSeen   []string
		wantRejct  int
	}{
		{name: "current token accepted", valid: []string{"Bearer t1"}, limit: 3, wantOK: true, wantSeen: []string{"Bearer t1"}},
		{name: "refused, refreshed, re-sent", valid: []string{"Bearer t2"}, limit: 3, wantOK: true,
			wantSeen: []string{"Bearer t1", "Bearer t2"}, wantRejct: 1},
		{name: "step-up 403 insufficient_scope goes to the credentials", valid: []string{"Bearer t2"}, status: http.StatusForbidden,
			limit: 3, wantOK: true, wantSeen: []string{"Bearer t1", "Bearer t2"}, wantRejct: 1},
		{name: "credentials give up: the request fails", limit: 1, wantSeen: []string{"Bearer t1"}, wantRejct: 1},
		{name: "refused twice: at most one retry", limit: 5, wantSeen: []string{"Bearer t1", "Bearer t2"}, wantRejct: 2},
		{name: "OAuth value wins over a configured Authorization", valid: []string{"Bearer t1"}, limit: 1,
			configured: map[string]string{"Authorization": "Bearer static", "X-Other": "x"}, wantOK: true, wantSeen: []string{"Bearer t1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := &tokenServer{valid: map[string]bool{}, status: tc.status}
			for _, v := range tc.valid {
				ts.valid[v] = true
			}
			srv := httptest.NewServer(ts)
			defer srv.Close()
			creds := &fakeCredentials{limit: tc.limit}
			c, err := NewClient(Policy{ServerURL: srv.URL + "/mcp", Headers: tc.configured, Credentials: creds})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"id":1}`))
			if tc.wantOK {
				if err != nil {
					t.Fatalf("request failed: %v", err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "ok" {
					t.Fatalf("status %d %q, want ok", resp.StatusCode, b)
				}
			} else {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("request succeeded with status %d, want a KindUnauthorized error", resp.StatusCode)
				}
				if pluginapi.KindOf(err) != pluginapi.KindUnauthorized {
					t.Fatalf("error %v has kind %q, want unauthorized", err, pluginapi.KindOf(err))
				}
			}
			seen, bodies := ts.received()
			if diff := cmp.Diff(tc.wantSeen, seen); diff != "" {
				t.Errorf("Authorization values received (-want +got):\n%s", diff)
			}
			for i, b := range bodies {
				if b != `{"id":1}` {
					t.Errorf("request %d had body %q, want the original", i, b)
				}
			}
			if len(creds.rejected) != tc.wantRejct {
				t.Errorf("credentials heard of %d refusals, want %d", len(creds.rejected), tc.wantRejct)
			}
			for _, r := range creds.rejected {
				if r.Sent == "" || len(r.WWWAuthenticate) != 1 {
					t.Errorf("rejection %v lacks the value sent or the challenge", r)
				}
			}
		})
	}
}

// TestCredentialsOnlyToServerOrigin: another origin gets neither the token
// nor a question to the credentials.
func TestCredentialsOnlyToServerOrigin(t *testing.T) {
	server := &tokenServer{valid: map[string]bool{"Bearer t1": true}}
	other := &tokenServer{valid: map[string]bool{"": true}}
	s1, s2 := httptest.NewServer(server), httptest.NewServer(other)
	defer s1.Close()
	defer s2.Close()
	creds := &fakeCredentials{limit: 1}
	c, err := NewClient(Policy{ServerURL: s1.URL + "/mcp", Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{s2.URL + "/elsewhere", s1.URL + "/mcp"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if seen, _ := other.received(); !cmp.Equal(seen, []string{""}) {
		t.Errorf("the other origin received Authorization %q", seen)
	}
	if creds.asked != 1 {
		t.Errorf("credentials asked %d times, want 1 (the server's request only)", creds.asked)
	}
}

// TestCredentialsCache: a value is reused for CacheFor, then asked again.
func TestCredentialsCache(t *testing.T) {
	ts := &tokenServer{valid: map[string]bool{"Bearer t1": true}}
	srv := httptest.NewServer(ts)
	defer srv.Close()
	creds := &fakeCredentials{limit: 1, cacheFor: time.Minute}
	now := time.Unix(1000, 0)
	b := &bearer{creds: creds, now: func() time.Time { return now }}
	client := &http.Client{Transport: &headerTransport{base: http.DefaultTransport, origins: serverOrigins(mustURL(t, srv.URL)), bearer: b}}
	get := func() {
		resp, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	get()
	get()
	if creds.asked != 1 {
		t.Fatalf("asked %d times within CacheFor, want 1", creds.asked)
	}
	now = now.Add(time.Minute + time.Second)
	get()
	if creds.asked != 2 {
		t.Fatalf("asked %d times after CacheFor passed, want 2", creds.asked)
	}
}

// TestCredentialsError: a failure to get a value fails the request unsent.
func TestCredentialsError(t *testing.T) {
	ts := &tokenServer{valid: map[string]bool{}}
	srv := httptest.NewServer(ts)
	defer srv.Close()
	boom := pluginapi.Errorf("credentials", pluginapi.KindConnect, "token endpoint timed out")
	c, err := NewClient(Policy{ServerURL: srv.URL, Credentials: failingCredentials{boom}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(srv.URL)
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the credentials' error", err)
	}
	if seen, _ := ts.received(); len(seen) != 0 {
		t.Errorf("server received %d requests, want none", len(seen))
	}
}

type failingCredentials struct{ err error }

func (f failingCredentials) Authorization(context.Context) (pluginapi.Authorization, error) {
	return pluginapi.Authorization{}, f.err
}

func (f failingCredentials) Rejected(context.Context, pluginapi.Rejection) (pluginapi.Authorization, error) {
	return pluginapi.Authorization{}, f.err
}

// TestForbiddenWithoutScopeChallengePassesThrough: a plain 403 is the
// server's answer, not a credentials problem.
func TestForbiddenWithoutScopeChallengePassesThrough(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, http.StatusForbidden)
	}))
	defer srv.Close()
	creds := &fakeCredentials{limit: 1}
	c, err := NewClient(Policy{ServerURL: srv.URL, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(creds.rejected) != 0 {
		t.Errorf("status %d, %d rejections reported; want the 403 back and none", resp.StatusCode, len(creds.rejected))
	}
}
