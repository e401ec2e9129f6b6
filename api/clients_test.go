package api_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/gateway"
)

// GET /api/connect gives every client's configuration with <token> in
// the token's place; only POST /api/connect/token has the token. Without
// a gateway both are 404.
func TestConnectEndpoints(t *testing.T) {
	f := newFixture(t)
	if code, body := f.do(t, "GET", "/api/connect", ""); code != 404 {
		t.Errorf("GET /api/connect without a gateway: %d %s", code, body)
	}
	const tok = "gw-token-0123456789"
	snip := gateway.Snippet{URL: "http://127.0.0.1:9/mcp", Token: tok, TokenFile: "/h/gateway.token", Exe: "/bin/plughost"}
	f.srv = httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Version: "test", Connect: &snip}))
	t.Cleanup(f.srv.Close)

	code, body := f.do(t, "GET", "/api/connect", "")
	var c gateway.Connection
	if code != 200 || json.Unmarshal([]byte(body), &c) != nil || len(c.Clients) != 5 || !c.Auth {
		t.Fatalf("GET /api/connect: %d %s", code, body)
	}
	if strings.Contains(body, tok) || !strings.Contains(c.Clients[0].Text, "Bearer $(cat /h/gateway.token)") || !strings.Contains(c.Clients[3].Text, "Bearer <token>") {
		t.Errorf("GET /api/connect must hold <token>, never the token:\n%s", body)
	}
	code, body = f.do(t, "POST", "/api/connect/token", "")
	var rev api.TokenReveal
	if code != 200 || json.Unmarshal([]byte(body), &rev) != nil || rev.Token != tok {
		t.Fatalf("POST /api/connect/token: %d %s", code, body)
	}
	if rev.Clients[0].Text != `claude mcp add --transport http plughost http://127.0.0.1:9/mcp --header "Authorization: Bearer `+tok+`"` {
		t.Errorf("claude code with the token: %q", rev.Clients[0].Text)
	}
}

// Clients are created (the token answered once, only its digest written),
// listed without tokens, refused with the field at fault, and removed.
func TestClientEndpoints(t *testing.T) {
	f := newFixture(t)
	code, body := f.do(t, "POST", "/api/clients", `{"name":"ci-bot","servers":["a"]}`)
	var w api.ClientWritten
	if code != 201 || json.Unmarshal([]byte(body), &w) != nil || w.Name != "ci-bot" || len(w.Token) < 20 {
		t.Fatalf("POST /api/clients: %d %s", code, body)
	}
	if file := readFile(t, f.file); strings.Contains(file, w.Token) || !strings.Contains(file, `"ci-bot"`) {
		t.Errorf("the config file should hold the client's digest, not its token:\n%s", file)
	}
	code, body = f.do(t, "GET", "/api/clients", "")
	var list api.ClientList
	if code != 200 || json.Unmarshal([]byte(body), &list) != nil || len(list.Clients) != 1 || list.Clients[0].Name != "ci-bot" {
		t.Errorf("GET /api/clients: %d %s", code, body)
	}
	if strings.Contains(body, w.Token) || strings.Contains(body, "sha256") {
		t.Errorf("the listing shows a token or digest:\n%s", body)
	}
	for _, c := range []struct {
		name, body, path string
		code             int
	}{
		{"empty name", `{"name":"","servers":["a"]}`, "name", 400},
		{"no servers", `{"name":"x"}`, "servers", 400},
		{"unknown server", `{"name":"x","servers":["zz"]}`, "servers", 422},
		{"exists", `{"name":"ci-bot","servers":["a"]}`, "", 409},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := f.do(t, "POST", "/api/clients", c.body)
			var e struct{ Error api.Error }
			if code != c.code || json.Unmarshal([]byte(body), &e) != nil {
				t.Fatalf("%d %s, want %d", code, body, c.code)
			}
			if c.path != "" && (len(e.Error.Problems) != 1 || e.Error.Problems[0].Path != c.path) {
				t.Errorf("problems %+v, want one at %q", e.Error.Problems, c.path)
			}
		})
	}
	if code, body := f.do(t, "DELETE", "/api/clients/ci-bot", ""); code != 200 {
		t.Errorf("DELETE: %d %s", code, body)
	}
	if code, body := f.do(t, "DELETE", "/api/clients/ci-bot", ""); code != 404 {
		t.Errorf("DELETE again: %d %s", code, body)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
