package api_test

import (
	"net"
	"net/http/httptest"
	"testing"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/frontdoor"
)

// Behind serve's front door, a write without the token, with a wrong one,
// or from another origin with the right one changes nothing; the right
// token from the page's own origin does.
func TestWritesNeedTokenAndOrigin(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	door, err := frontdoor.New(f.h, frontdoor.Options{Listener: ln, Token: "right-token"})
	if err != nil {
		t.Fatal(err)
	}
	door.Mount("/api/", api.New(api.Options{Host: f.h, Manager: f.m}))
	srv := httptest.NewServer(door.Handler())
	defer srv.Close()
	f.srv = srv
	before := f.fileBytes(t)
	disable := `{"enabled":false}`
	for _, tc := range []struct {
		what   string
		header []string
		want   int
	}{
		{"no token", nil, 401},
		{"a wrong token", []string{"Authorization", "Bearer wrong-token"}, 401},
		{"another origin", []string{"Authorization", "Bearer right-token", "Origin", "https://evil.example"}, 403},
		{"a look-alike origin", []string{"Authorization", "Bearer right-token", "Origin", srv.URL + ".evil.example"}, 403},
	} {
		if code, body := f.do(t, "POST", "/api/servers/a/enabled", disable, tc.header...); code != tc.want {
			t.Errorf("%s: %d %s; want %d", tc.what, code, body, tc.want)
		}
		if f.fileBytes(t) != before {
			t.Fatalf("a request with %s changed the config file", tc.what)
		}
	}
	if code, body := f.do(t, "POST", "/api/servers/a/enabled", disable, "Authorization", "Bearer right-token", "Origin", srv.URL); code != 200 {
		t.Errorf("the right token from the page's origin: %d %s", code, body)
	}
	if f.fileBytes(t) == before {
		t.Error("the authorized write did not change the file")
	}
}
