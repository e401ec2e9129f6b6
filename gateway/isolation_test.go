package gateway_test

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/proctree"
	"github.com/plughost/plughost/internal/testbin"
	"github.com/plughost/plughost/internal/testwait"
)

// rootsClient opens a session to url whose client has one root,
// file:///<root>.
func rootsClient(t *testing.T, url, root string) (*faithfulClient, *transport.StreamableHTTP) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken.Reveal()}))
	if err != nil {
		t.Fatal(err)
	}
	c := &faithfulClient{got: make(chan struct{}, 1), root: root}
	return startFaithfulClient(t, c, tr), tr
}

// deleteSession ends a session with DELETE (mcp-go's Close sends its
// DELETE without the configured headers, so the gateway refuses it).
func deleteSession(t *testing.T, url, id string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken.Reveal())
	req.Header.Set("Mcp-Session-Id", id)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE %s: %s", url, res.Status)
	}
}

// Three clients with roots of their own through /mcp and through
// /servers/<name>/mcp, against server-everything (which keeps the first
// roots it gets per connection): with isolation "session" each sees its
// own roots, and a resource one creates is in its own resources/list
// only (on /mcp in the per-server URI form); a shared server sees its configured roots, never a client's.
// Deleting the sessions stops their processes.
func TestIsolationThroughTheGateway(t *testing.T) {
	integration(t)
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	entry := func(k string, v any) map[string]any {
		return map[string]any{"enabled": true, "command": "node", "args": []string{everything, "stdio"},
			"timeouts": map[string]any{"call_seconds": 20}, k: v}
	}
	h := startHost(t, map[string]any{"iso": entry("isolation", "session"), "shr": entry("roots", []string{"/srv/shared"})}, nil)
	url, _ := serveHTTP(t, h)
	before := proctree.Descendants(os.Getpid())
	doors := []struct{ name, url, prefix string }{
		{"/mcp", url, "mcp_iso_"},
		{"/servers/iso/mcp", strings.TrimSuffix(url, "/mcp") + "/servers/iso/mcp", ""},
	}
	var clients []*faithfulClient
	type ended struct{ url, id string }
	var sessions []ended
	for _, door := range doors {
		for i := range 3 {
			root := fmt.Sprintf("client-%s-%d", strings.Trim(strings.ReplaceAll(door.name, "/", "-"), "-"), i)
			c, tr := rootsClient(t, door.url, root)
			clients = append(clients, c)
			sessions = append(sessions, ended{door.url, tr.GetSessionId()})
			got := text(c.call(t, door.prefix+"get-roots-list", map[string]any{}))
			if !strings.Contains(got, "file:///"+root) || strings.Count(got, "file:///client-") != 1 {
				t.Errorf("%s client %d: get-roots-list %q; want its own root file:///%s alone", door.name, i, got, root)
			}
			if door.prefix != "" {
				got = text(c.call(t, "mcp_shr_get-roots-list", map[string]any{}))
				if !strings.Contains(got, "file:///srv/shared") || strings.Contains(got, "file:///client-") {
					t.Errorf("%s client %d: shared get-roots-list %q; want the configured roots and no client's", door.name, i, got)
				}
			}
		}
	}
	// Session resources, on each door: one client's are in its own
	// resources/list, never in another's, and it can read them.
	for d, door := range doors {
		group := clients[3*d : 3*d+3]
		group[0].call(t, door.prefix+"gzip-file-as-resource", map[string]any{"name": "mine.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"})
		for i, c := range group {
			list, err := c.ListResources(ctx20(t), mcp.ListResourcesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			at := slices.IndexFunc(list.Resources, func(r mcp.Resource) bool { return strings.Contains(r.URI, "mine.gz") })
			if (at >= 0) != (i == 0) {
				t.Errorf("%s client %d lists the session resource mine.gz: %v; want only the client that created it to", door.name, i, at >= 0)
			}
			if at < 0 {
				continue
			}
			if _, err := c.ReadResource(ctx20(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: list.Resources[at].URI}}); err != nil {
				t.Errorf("%s: reading its own %s: %v", door.name, list.Resources[at].URI, err)
			}
		}
	}
	started := newProcesses(before)
	// Each session's connection starts a server; its plugin process is the
	// stdio plugin the server's shared connection already runs in.
	if len(started) < 6 {
		t.Errorf("six sessions started %d processes; want a server each", len(started))
	}
	for _, s := range sessions {
		deleteSession(t, s.url, s.id)
	}
	if !testwait.Until(20*time.Second, func() bool { return len(proctree.Alive(started)) == 0 }) {
		left := proctree.Alive(started)
		proctree.Kill(left)
		t.Errorf("after the sessions were deleted, still running: %v", left)
	}
}

// newProcesses returns the descendants of this process not in before.
func newProcesses(before []proctree.Proc) []proctree.Proc {
	var out []proctree.Proc
	for _, p := range proctree.Descendants(os.Getpid()) {
		if !slices.ContainsFunc(before, func(b proctree.Proc) bool { return b.PID == p.PID && b.Start == p.Start }) {
			out = append(out, p)
		}
	}
	return out
}
