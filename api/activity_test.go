package api_test

import (
	"encoding/json"
	"net"
	"net/http/httptest"
	"testing"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/host"
)

// GET /api/activity lists the audit records newest first, filtered and
// bounded as asked; a bad limit is a 400 naming it.
func TestActivity(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/api/tools/mcp_a_echo/call", "/api/tools/mcp_a_noop/call"} {
		if code, body := f.do(t, "POST", path, `{"text":"hi"}`); code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
	}
	list := func(query string) host.Activity {
		t.Helper()
		code, body := f.do(t, "GET", "/api/activity"+query, "")
		var a host.Activity
		if code != 200 || json.Unmarshal([]byte(body), &a) != nil {
			t.Fatalf("GET /api/activity%s: %d %s", query, code, body)
		}
		return a
	}
	a := list("")
	if !a.Enabled || len(a.Records) != 2 || a.Records[0].Name != "noop" || a.Records[1].Name != "echo" {
		t.Errorf("activity should list noop then echo: %+v", a)
	}
	if r := a.Records[0]; r.Client != "admin" || r.Server != "a" || r.Method != "tools/call" || r.Outcome != "ok" {
		t.Errorf("noop's record: %+v", r)
	}
	if a := list("?limit=1"); len(a.Records) != 1 || a.Records[0].Name != "noop" {
		t.Errorf("limit=1: %+v", a.Records)
	}
	if a := list("?server=a&client=admin"); len(a.Records) != 2 {
		t.Errorf("server=a&client=admin: %+v", a.Records)
	}
	if a := list("?client=nobody"); len(a.Records) != 0 {
		t.Errorf("client=nobody: %+v", a.Records)
	}
	if code, body := f.do(t, "GET", "/api/activity?limit=0", ""); code != 400 {
		t.Errorf("limit=0: %d %s", code, body)
	}
}

// Behind serve's front door the activity needs the token.
func TestActivityNeedsToken(t *testing.T) {
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
	f.srv = httptest.NewServer(door.Handler())
	defer f.srv.Close()
	for _, tc := range []struct {
		header []string
		want   int
	}{
		{nil, 401},
		{[]string{"Authorization", "Bearer wrong-token"}, 401},
		{[]string{"Authorization", "Bearer right-token"}, 200},
	} {
		if code, body := f.do(t, "GET", "/api/activity", "", tc.header...); code != tc.want {
			t.Errorf("%v: %d %s; want %d", tc.header, code, body, tc.want)
		}
	}
}
