package api_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
)

// pagedServers is how many servers the paging tests configure: more than
// two default pages.
const pagedServers = 2*api.DefaultPageSize + 201

// pagedFixture is a host with one running server ("a") and pagedServers-1
// disabled ones, and the API over it.
func pagedFixture(t *testing.T) (*fixture, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real plugin and server processes: heavy integration test, skipped under -short")
	}
	servers := map[string]any{"a": (&fixture{}).server()}
	for i := range pagedServers - 1 {
		servers[fmt.Sprintf("off-%04d", i)] = map[string]any{"enabled": false, "command": "true"}
	}
	f := startHost(t, servers, host.Options{})
	f.srv = httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Version: "test"}))
	t.Cleanup(f.srv.Close)
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return f, names
}

// GET /api/servers answers a page: without a limit the first
// DefaultPageSize servers, with next_cursor and the totals of all; the
// pages, followed, hold every server once, in order. Before, one answer
// held every server: 40,000 of them were 17.4 MB built in 15.5 s.
func TestServersArePaged(t *testing.T) {
	f, names := pagedFixture(t)
	first := getList(t, f, "/api/servers")
	if len(first.Servers) != api.DefaultPageSize || first.NextCursor != names[api.DefaultPageSize-1] {
		t.Fatalf("first page: %d servers, next_cursor %q; want %d and %q", len(first.Servers), first.NextCursor, api.DefaultPageSize, names[api.DefaultPageSize-1])
	}
	if want := (host.ServerTotals{Servers: pagedServers, Connected: 1, Tools: 11}); first.Totals != want {
		t.Errorf("totals %+v; want %+v", first.Totals, want)
	}
	var got []string
	for cursor, pages := "", 0; ; pages++ {
		if pages > pagedServers {
			t.Fatal("next_cursor never ends")
		}
		page := getList(t, f, "/api/servers?limit=300&cursor="+cursor)
		for _, r := range page.Servers {
			got = append(got, r.Name)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if !slices.Equal(got, names) {
		t.Errorf("the pages hold %d servers; want each of the %d once, in order", len(got), len(names))
	}
}

func TestServersPageLimitChecked(t *testing.T) {
	f, _ := pagedFixture(t)
	for _, q := range []string{"limit=0", "limit=-3", "limit=abc", fmt.Sprintf("limit=%d", api.MaxPageSize+1)} {
		for _, path := range []string{"/api/servers?", "/api/events?"} {
			status, body := f.do(t, "GET", path+q, "")
			if status != 400 || !strings.Contains(body, "limit=") || !strings.Contains(body, fmt.Sprint(api.MaxPageSize)) {
				t.Errorf("GET %s%s = %d %s; want 400 naming limit and its range", path, q, status, body)
			}
		}
	}
}

// The client (what `plughost mcp list` asks a running serve through)
// follows the pages: it lists every server.
func TestClientServersFollowsPages(t *testing.T) {
	f, names := pagedFixture(t)
	home := t.TempDir()
	tokFile := filepath.Join(home, "token")
	if err := os.WriteFile(tokFile, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := api.Dial(t.Context(), api.Runtime{PID: os.Getpid(), URL: f.srv.URL, ConfigFile: f.file, TokenFile: tokFile})
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.Servers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(list.Servers))
	for i, r := range list.Servers {
		got[i] = r.Name
	}
	if !slices.Equal(got, names) || list.NextCursor != "" {
		t.Errorf("Servers listed %d servers (next_cursor %q); want all %d", len(got), list.NextCursor, len(names))
	}
}

func getList(t *testing.T, f *fixture, path string) api.ServerList {
	t.Helper()
	status, body := f.do(t, "GET", path, "")
	if status != 200 {
		t.Fatalf("GET %s = %d %s", path, status, body)
	}
	var l api.ServerList
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		t.Fatal(err)
	}
	return l
}
