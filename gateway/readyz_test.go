package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plughost/plughost/internal/testredis"
)

// readyz returns the status and the body of the /readyz of the gateway
// whose MCP URL is url.
func readyz(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	r := newRaw(t, strings.TrimSuffix(url, "/mcp")+"/readyz").do("GET", "", nil)
	var body map[string]any
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatalf("/readyz: %d %q: %v", r.status, r.body, err)
	}
	return r.status, body
}

// A Redis that answers PING but refuses writes (out of memory under
// noeviction) makes /readyz 503, quoting what Redis said; a Redis that
// evicts keys when full leaves the replica ready, with a warning in the
// store object.
func TestReplicaReadyzRedisRefusesWrites(t *testing.T) {
	srv := testredis.New(t)
	h, _, _ := replica(t, srv.URL(0))
	url, _ := serveHTTP(t, h)
	if status, body := readyz(t, url); status != 200 {
		t.Fatalf("/readyz of a healthy replica: %d %v", status, body)
	}
	command := func(args ...string) {
		t.Helper()
		if reply, err := srv.Command(args...); err != nil || reply != "+OK" {
			t.Fatalf("%v: %q %v", args, reply, err)
		}
	}

	command("CONFIG", "SET", "maxmemory", "1")
	status, body := readyz(t, url)
	store, _ := body["store"].(map[string]any)
	if errText, _ := store["error"].(string); status != 503 || body["ready"] != false || store["up"] != false ||
		!strings.Contains(errText, `answered a test write with an error: "OOM command not allowed when used memory > 'maxmemory'.`) {
		t.Errorf("/readyz with Redis out of memory: %d %v, want 503 quoting Redis's OOM", status, body)
	}
	command("CONFIG", "SET", "maxmemory", "0")

	command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	status, body = readyz(t, url)
	store, _ = body["store"].(map[string]any)
	if warning, _ := store["warning"].(string); status != 200 || store["up"] != true ||
		!strings.Contains(warning, "maxmemory-policy allkeys-lru") || !strings.Contains(warning, "set maxmemory-policy noeviction") {
		t.Errorf("/readyz with Redis evicting keys: %d %v, want 200 with a warning naming the policy and the fix", status, body)
	}
}
