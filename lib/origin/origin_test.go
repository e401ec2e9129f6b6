package origin

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, want, problem string
	}{
		{"http://localhost:6274", "http://localhost:6274", ""},
		{"HTTP://LocalHost:6274/", "http://localhost:6274", ""},
		{"https://app.example.com:443", "https://app.example.com", ""},
		{"http://[::1]:80", "http://[::1]", ""},
		{"http://[::1]:3000", "http://[::1]:3000", ""},
		{"chrome-extension://abcdefghij", "chrome-extension://abcdefghij", ""},
		{"localhost:6274", "", "not an origin"},
		{"localhost", "", "not an origin"},
		{"null", "", "not an origin"},
		{"", "", "not an origin"},
		{"http://", "", "has no host"},
		{"http://:80", "", "has no host"},
		{"http://bob@localhost:1", "", "user name"},
		{"http://localhost:1/mcp", "", "path, query or fragment"},
		{"http://localhost:1?x=1", "", "path, query or fragment"},
		{"http://localhost:1#top", "", "path, query or fragment"},
		{"http://localhost:99999", "", `port "99999"`},
		{"http://localhost:", "", `port ""`},
	} {
		got, err := Parse(c.in)
		switch {
		case c.problem == "" && (err != nil || got != c.want):
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
		case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem) || !strings.Contains(err.Error(), "scheme://host[:port]")):
			t.Errorf("Parse(%q) = %q, %v; want an error saying %q and how to write an origin", c.in, got, err, c.problem)
		}
	}
}

func TestRule(t *testing.T) {
	r, err := New([]string{"http://localhost:6274", "https://App.Example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		origin, host string
		want         bool
	}{
		{"http://127.0.0.1:8765", "127.0.0.1:8765", true},   // its own page (the dashboard)
		{"https://127.0.0.1:8765", "127.0.0.1:8765", true},  // behind a TLS proxy
		{"http://LOCALHOST:8765", "localhost:8765", true},   // case
		{"http://example.com", "example.com:80", true},      // default port
		{"https://example.com:443", "example.com", true},    // default port
		{"http://localhost:3000", "127.0.0.1:8765", false},  // another local page
		{"http://127.0.0.1:3000", "127.0.0.1:8765", false},  // same host, other port
		{"http://localhost:8765", "127.0.0.1:8765", false},  // another name of the host is another origin
		{"http://evil.example", "127.0.0.1:8765", false},    // the web
		{"null", "127.0.0.1:8765", false},                   // a sandboxed frame or a file
		{"file://", "127.0.0.1:8765", false},                // a local file
		{"ftp://127.0.0.1:8765", "127.0.0.1:8765", false},   // not a web page's scheme
		{"http://localhost:6274", "127.0.0.1:8765", true},   // listed
		{"http://localhost:6274/", "127.0.0.1:8765", true},  // listed, written with a slash
		{"https://app.example.com", "127.0.0.1:8765", true}, // listed, other case in the config
		{"http://app.example.com", "127.0.0.1:8765", false}, // listed only over https
		{"http://localhost:62740", "127.0.0.1:8765", false}, // not listed
		{"http://127.0.0.1:8765", "", false},                // no Host to compare with
	} {
		if got := r.Allows(c.origin, c.host); got != c.want {
			t.Errorf("Allows(%q, Host %q) = %v, want %v", c.origin, c.host, got, c.want)
		}
	}
	var own Rule
	if own.Allows("http://localhost:6274", "127.0.0.1:8765") || !own.Allows("http://127.0.0.1:8765", "127.0.0.1:8765") {
		t.Error("the zero Rule must admit the own origin only")
	}
	if _, err := New([]string{"http://ok:1", "localhost:6274"}); err == nil || !strings.Contains(err.Error(), `"localhost:6274"`) {
		t.Errorf("New with a bad origin: %v", err)
	}
}
