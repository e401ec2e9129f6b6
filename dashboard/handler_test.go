package dashboard

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/config"
)

// mux mounts the dashboard like the front door: Mount behind a fake token
// check, MountPublic as is.
type mux struct{ *http.ServeMux }

func (m mux) Mount(p string, h http.Handler) {
	m.Handle(p, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer the-token-0123456789" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
}

func (m mux) MountPublic(p string, h http.Handler) { m.Handle(p, h) }

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	m := mux{http.NewServeMux()}
	New(Options{Token: "the-token-0123456789"}).MountOn(m)
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func issue(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+LoginCodesPath, nil)
	req.Header.Set("Authorization", "Bearer the-token-0123456789")
	resp, body := do(t, req)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("issue a code: %s %s", resp.Status, body)
	}
	var out struct{ Code string }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	return out.Code
}

func exchange(t *testing.T, srv *httptest.Server, code, origin, contentType string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+SessionPath, strings.NewReader(`{"code":"`+code+`"}`))
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.Header.Set("Content-Type", contentType)
	resp, body := do(t, req)
	return resp.StatusCode, body
}

func TestLoginExchange(t *testing.T) {
	srv := newServer(t)
	self := srv.URL
	tests := []struct {
		name        string
		origin, ct  string
		reuse       bool
		wantStatus  int
		wantTokenIn bool
	}{
		{"same origin", self, "application/json", false, 200, true},
		{"code used twice", self, "application/json", true, 401, false},
		{"other origin", "http://evil.example", "application/json", false, 403, false},
		{"other port", "http://127.0.0.1:1", "application/json", false, 403, false},
		{"no origin", "", "application/json", false, 403, false},
		{"form body", self, "application/x-www-form-urlencoded", false, 415, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := issue(t, srv)
			if tt.reuse {
				if st, body := exchange(t, srv, code, self, "application/json"); st != 200 {
					t.Fatalf("first exchange: %d %s", st, body)
				}
			}
			st, body := exchange(t, srv, code, tt.origin, tt.ct)
			if st != tt.wantStatus {
				t.Errorf("status %d, want %d (%s)", st, tt.wantStatus, body)
			}
			if got := strings.Contains(body, "the-token-0123456789"); got != tt.wantTokenIn {
				t.Errorf("token in the answer: %v, want %v: %s", got, tt.wantTokenIn, body)
			}
			if !tt.reuse && tt.wantStatus != 200 { // a refused request spends nothing
				if st, body := exchange(t, srv, code, self, "application/json"); st != 200 {
					t.Errorf("after the refused request, the code no longer works: %d %s", st, body)
				}
			}
		})
	}
}

func TestLoginCodesNeedTheToken(t *testing.T) {
	srv := newServer(t)
	req, _ := http.NewRequest("POST", srv.URL+LoginCodesPath, nil)
	if resp, body := do(t, req); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %s %s, want 401", resp.Status, body)
	}
	req, _ = http.NewRequest("POST", srv.URL+LoginCodesPath, nil)
	req.Header.Set("Authorization", "Bearer the-token-0123456789")
	req.Header.Set("Origin", "http://evil.example")
	if resp, body := do(t, req); resp.StatusCode != http.StatusForbidden {
		t.Errorf("from another origin: %s %s, want 403", resp.Status, body)
	}
}

func TestAssets(t *testing.T) {
	srv := newServer(t)
	for _, path := range []string{"/", "/app.css", "/js/main.js", "/favicon.svg", RulesPath} {
		t.Run(path, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+path, nil)
			resp, body := do(t, req)
			if resp.StatusCode != 200 || body == "" {
				t.Fatalf("GET %s: %s", path, resp.Status)
			}
			got := map[string]string{}
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"} {
				got[h] = resp.Header.Get(h)
			}
			want := map[string]string{
				"Content-Security-Policy": contentSecurityPolicy,
				"X-Frame-Options":         "DENY",
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "no-referrer",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("security headers (-want +got):\n%s", diff)
			}
			if strings.Contains(body, "the-token-0123456789") {
				t.Errorf("the token is in %s", path)
			}
		})
	}
	req, _ := http.NewRequest("POST", srv.URL+"/", strings.NewReader("x"))
	if resp, _ := do(t, req); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %s, want 405", resp.Status)
	}
	req, _ = http.NewRequest("GET", srv.URL+"/nothing-here.js", nil)
	if resp, _ := do(t, req); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a missing asset: %s, want 404", resp.Status)
	}
}

// The page's name check is the validator's rule itself: rules.js carries
// package config's pattern, length and wording, and no form keeps a rule of
// its own.
func TestRulesModule(t *testing.T) {
	srv := newServer(t)
	req, _ := http.NewRequest("GET", srv.URL+RulesPath, nil)
	resp, body := do(t, req)
	rule, _ := json.Marshal(config.ServerNamePattern)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") ||
		!strings.Contains(body, "export const SERVER_NAME = {") || !strings.Contains(body, string(rule)) ||
		!strings.Contains(body, fmt.Sprintf(`"max_length":%d`, config.ServerNameMaxLen)) {
		t.Fatalf("GET %s: %s %s\n%s", RulesPath, resp.Status, resp.Header.Get("Content-Type"), body)
	}
	for _, file := range []string{"static/js/serverform.js", "static/js/catalog.js"} {
		b, err := static.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "Letters, digits") || !strings.Contains(string(b), "nameProblem(") || !strings.Contains(string(b), "help: nameHelp") {
			t.Errorf("%s does not take the name rule from names.js", file)
		}
	}
}

// The CSP forbids inline scripts and styles: the page must have none.
func TestNoInlineScriptOrStyle(t *testing.T) {
	b, err := static.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, bad := range []string{"<script>", "<style", " style=", " onclick=", " onload=", "javascript:"} {
		if strings.Contains(html, bad) {
			t.Errorf("index.html contains %q, which the Content-Security-Policy blocks", bad)
		}
	}
	if !strings.Contains(contentSecurityPolicy, "script-src 'self'") || strings.Contains(contentSecurityPolicy, "unsafe-inline") {
		t.Errorf("the CSP allows more than the page's own scripts: %s", contentSecurityPolicy)
	}
}

func TestLoginURL(t *testing.T) {
	if got, want := LoginURL("http://127.0.0.1:8765/", "abc"), "http://127.0.0.1:8765/#code=abc"; got != want {
		t.Errorf("LoginURL = %q, want %q", got, want)
	}
}

// Static files come gzip-compressed when the browser accepts it, with an
// ETag per encoding; a request naming the current ETag gets 304 without a
// body, and the security headers stay on every answer.
func TestAssetsCompressedAndRevalidated(t *testing.T) {
	srv := newServer(t)
	// A transport that leaves Accept-Encoding and the body as they are.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	for _, path := range []string{"/", "/js/main.js", "/app.css", RulesPath} {
		t.Run(path, func(t *testing.T) {
			plain, body := get(path)
			zipped, zbody := get(path, "Accept-Encoding", "br, gzip")
			if plain.Header.Get("Content-Encoding") != "" || zipped.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("encodings %q and %q, want none and gzip", plain.Header.Get("Content-Encoding"), zipped.Header.Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(zbody))
			if err != nil {
				t.Fatal(err)
			}
			unzipped, _ := io.ReadAll(zr)
			if !bytes.Equal(unzipped, body) || len(zbody) >= len(body) {
				t.Errorf("gzip body: %d bytes unzipping to %d, plain %d", len(zbody), len(unzipped), len(body))
			}
			etag := zipped.Header.Get("ETag")
			if etag == "" || etag == plain.Header.Get("ETag") || zipped.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("ETags %q / %q, Vary %q", plain.Header.Get("ETag"), etag, zipped.Header.Get("Vary"))
			}
			again, rest := get(path, "Accept-Encoding", "gzip", "If-None-Match", etag)
			if again.StatusCode != http.StatusNotModified || len(rest) != 0 || again.Header.Get("Content-Security-Policy") != contentSecurityPolicy {
				t.Errorf("revalidation: %s, %d bytes, CSP %q", again.Status, len(rest), again.Header.Get("Content-Security-Policy"))
			}
			if stale, _ := get(path, "If-None-Match", `"0000"`); stale.StatusCode != 200 {
				t.Errorf("a stale ETag: %s, want 200", stale.Status)
			}
			if refused, _ := get(path, "Accept-Encoding", "gzip;q=0"); refused.Header.Get("Content-Encoding") != "" {
				t.Error("gzip;q=0 was answered with gzip")
			}
		})
	}
}
