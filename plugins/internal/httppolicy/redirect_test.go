package httppolicy

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const apiKey = "s3cret-api-key"

func TestRedirectFollowedUpgrade(t *testing.T) {
	a := newSite(t)
	httpA, httpsA := "http://127.0.0.1:"+a.Port, "https://127.0.0.1:"+a.Port
	cases := []struct {
		name   string
		code   int
		method string
		body   string
	}{
		{"307 keeps POST", http.StatusTemporaryRedirect, http.MethodPost, `{"jsonrpc":"2.0"}`},
		{"308 keeps POST", http.StatusPermanentRedirect, http.MethodPost, `{"jsonrpc":"2.0"}`},
		{"301 GET (SSE stream)", http.StatusMovedPermanently, http.MethodGet, ""},
		{"302 GET", http.StatusFound, http.MethodGet, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from, to := "/from-"+string(rune('a'+i)), "/to-"+string(rune('a'+i))
			a.redirect("http", from, httpsA+to, tc.code)
			c := newTestClient(t, httpA+from, a)
			req, err := http.NewRequest(tc.method, httpA+from, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("upgrade redirect not followed: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(b) != "ok" {
				t.Fatalf("got %d %q, want 200 ok", resp.StatusCode, b)
			}
			want := []hit{{Scheme: "https", Method: tc.method, Path: to, APIKey: apiKey, Body: tc.body}}
			if diff := cmp.Diff(want, a.hitsTo(to)); diff != "" {
				t.Errorf("requests at the https target (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedirectRefused(t *testing.T) {
	a, b := newSite(t), newSite(t)
	httpA, httpsA := "http://127.0.0.1:"+a.Port, "https://127.0.0.1:"+a.Port
	httpB, httpsB := "http://127.0.0.1:"+b.Port, "https://127.0.0.1:"+b.Port
	hostA, hostAs := "http://localhost:"+a.Port, "https://localhost:"+a.Port

	cases := []struct {
		name     string
		method   string
		start    string // URL requested (and configured)
		code     int
		target   string // Location answered by start
		target2  string // optional Location answered by target (second redirect)
		wantFrom string // RedirectError.From (the redirect refused)
		reason   string
	}{
		{name: "other host", start: httpA + "/r1", target: hostA + "/t1", reason: "another host"},
		{name: "upgrade to other host", start: httpA + "/r2", target: hostAs + "/t2", reason: "another host"},
		{name: "other port", start: httpA + "/r3", target: httpB + "/t3", reason: "another port"},
		{name: "upgrade to other port", start: httpA + "/r4", target: httpsB + "/t4", reason: "another port"},
		{name: "https to http downgrade", start: httpsA + "/r5", target: httpA + "/t5", reason: "downgrades https"},
		{name: "cross origin https", start: httpsA + "/r6", target: httpsB + "/t6", reason: "another port"},
		{name: "same origin other path, http", start: httpA + "/r7", target: httpA + "/t7", reason: "same scheme and origin"},
		{name: "same origin other path, https", start: httpsA + "/r8", target: httpsA + "/t8", reason: "same scheme and origin"},
		{name: "upgrade turning POST into GET", method: http.MethodPost, code: http.StatusMovedPermanently,
			start: httpA + "/r9", target: httpsA + "/t9", reason: "would turn POST into GET"},
		{name: "second redirect after the upgrade", start: httpA + "/r10", target: httpsA + "/t10a",
			target2: httpsA + "/t10", wantFrom: httpsA + "/t10a", reason: "at most 1 redirect"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code := tc.code
			if code == 0 {
				code = http.StatusTemporaryRedirect
			}
			register(t, a, b, tc.start, tc.target, code)
			refused, from := tc.target, tc.start
			if tc.target2 != "" {
				register(t, a, b, tc.target, tc.target2, code)
				refused, from = tc.target2, tc.wantFrom
			}
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			c := newTestClient(t, tc.start, a)
			req, err := http.NewRequest(method, tc.start, strings.NewReader(""))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("redirect to %s was followed (status %d)", refused, resp.StatusCode)
			}
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *RedirectError", err)
			}
			if diff := cmp.Diff([]string{from, refused}, []string{re.From, re.To}); diff != "" {
				t.Errorf("RedirectError URLs (-want +got):\n%s", diff)
			}
			msg := re.Error()
			for _, want := range []string{from, refused, tc.reason} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not contain %q", msg, want)
				}
			}
			if strings.Contains(err.Error(), apiKey) {
				t.Errorf("error %q leaks the configured header value", err)
			}
			path := mustURL(t, refused).Path
			if got := append(a.hitsTo(path), b.hitsTo(path)...); len(got) != 0 {
				t.Errorf("refused target received requests: %+v", got)
			}
		})
	}
}

// TestCheckRedirectPorts covers the effective-port rule without a network.
func TestCheckRedirectPorts(t *testing.T) {
	cases := []struct {
		from, to string
		allowed  bool
	}{
		{"http://h.example/", "https://h.example/", true},
		{"http://h.example:80/", "https://h.example:443/x", true},
		{"http://h.example/", "https://h.example:443/", true},
		{"http://h.example:8080/", "https://h.example:8080/", true},
		{"http://H.Example/", "https://h.example/", true},
		{"http://[::1]:3001/", "https://[::1]:3001/", true},
		{"http://h.example:8080/", "https://h.example/", false},
		{"http://h.example/", "https://h.example:8443/", false},
		{"http://h.example:443/", "https://h.example/", true},
		{"http://h.example/", "https://h.example.evil/", false},
		{"http://h.example/", "ftp://h.example/", false},
		{"https://h.example/", "https://h.example:443/", false},
	}
	for _, tc := range cases {
		t.Run(tc.from+" → "+tc.to, func(t *testing.T) {
			from := &http.Request{Method: http.MethodGet, URL: mustURL(t, tc.from)}
			to := &http.Request{Method: http.MethodGet, URL: mustURL(t, tc.to)}
			err := checkRedirect(to, []*http.Request{from})
			var re *RedirectError
			if tc.allowed && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tc.allowed && !errors.As(err, &re) {
				t.Errorf("got %v, want a *RedirectError", err)
			}
		})
	}
}

func TestRedirectErrorMasksURLSecrets(t *testing.T) {
	from := &http.Request{Method: http.MethodGet, URL: mustURL(t, "http://user:pw-secret@h.example/mcp?api_key=q-secret#frag")}
	to := &http.Request{Method: http.MethodGet, URL: mustURL(t, "https://evil.example/steal?token=t-secret")}
	err := checkRedirect(to, []*http.Request{from})
	want := &RedirectError{From: "http://xxxxx@h.example/mcp?xxxxx", To: "https://evil.example/steal?xxxxx", Reason: "it leads to another host"}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("checkRedirect (-want +got):\n%s", diff)
	}
	for _, s := range []string{"pw-secret", "q-secret", "t-secret", "user"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error %q leaks %q", err, s)
		}
	}
}

func newTestClient(t *testing.T, serverURL string, trust *site) *http.Client {
	t.Helper()
	c, err := NewClient(Policy{ServerURL: serverURL, Headers: map[string]string{"X-Api-Key": apiKey}, Base: trust.base()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// register makes the site serving from answer with a redirect to to.
func register(t *testing.T, a, b *site, from, to string, code int) {
	t.Helper()
	u := mustURL(t, from)
	s := a
	if u.Port() == b.Port {
		s = b
	}
	s.redirect(u.Scheme, u.Path, to, code)
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
