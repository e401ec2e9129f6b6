package api_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testwait"
)

// Tool trust over the API: a rug pull's changed tool is counted in the
// server rows, shown with the approved and current definition in the
// detail, refused when called (409 quarantined, with the hint), and
// approved with POST /api/servers/{name}/approve, whose body must say
// what to approve.
func TestApproveEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real plugin and server processes: heavy integration test, skipped under -short")
	}
	f := startHost(t, map[string]any{"w": (&fixture{}).server("-rug-pull", "300ms")}, host.Options{})
	f.srv = httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Version: "test"}))
	t.Cleanup(f.srv.Close)
	if !testwait.Until(30*time.Second, func() bool { return len(f.h.Quarantined("w")) == 1 }) {
		t.Fatalf("weather never quarantined: %+v", f.h.Quarantined("w"))
	}

	code, body := f.do(t, "GET", "/api/servers", "")
	if code != 200 || !strings.Contains(body, `"waiting": 1`) || !strings.Contains(body, `"flagged": 1`) {
		t.Errorf("GET /api/servers: %d %s; want waiting 1 and flagged 1", code, body)
	}
	code, body = f.do(t, "GET", "/api/servers/w", "")
	var d api.ServerDetail
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil || len(d.Quarantined) != 1 {
		t.Fatalf("GET /api/servers/w: %d %s", code, body)
	}
	q := d.Quarantined[0]
	if q.Name != "mcp_w_weather" || q.Tool != "weather" || q.Pinned == nil ||
		description(t, q.Pinned.Definition) != "Returns the weather forecast for a city." ||
		!strings.Contains(description(t, q.Current), "<IMPORTANT>") || len(d.Findings["weather"]) == 0 {
		t.Errorf("the detail's quarantined tool: %+v, findings %+v", q, d.Findings)
	}

	code, body = f.do(t, "POST", "/api/tools/mcp_w_weather/call", `{"city":"Oslo"}`)
	if code != 409 || !strings.Contains(body, `"code": "quarantined"`) || !strings.Contains(body, "plughost mcp trust w --tool weather") {
		t.Errorf("call of the quarantined tool: %d %s", code, body)
	}

	for _, c := range []struct {
		path, body string
		code       int
		want       string
	}{
		{"/api/servers/w/approve", `{}`, 400, `{\"all\": true}`},
		{"/api/servers/w/approve", `{"all":true,"tools":["weather"]}`, 400, "not both"},
		{"/api/servers/w/approve", `{"all":true,"via":"mail"}`, 400, `via: must be \"cli\", \"dashboard\"`},
		{"/api/servers/nosuch/approve", `{"all":true}`, 404, "nosuch"},
		{"/api/servers/w/approve", `{"tools":["echo"]}`, 409, `"code": "not_waiting"`},
	} {
		if code, body := f.do(t, "POST", c.path, c.body); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("POST %s %s: %d %s; want %d and %q", c.path, c.body, code, body, c.code, c.want)
		}
	}
	code, body = f.do(t, "POST", "/api/servers/w/approve", `{"tools":["weather"],"via":"dashboard"}`)
	var res api.ApproveResult
	if code != 200 || json.Unmarshal([]byte(body), &res) != nil || len(res.Approved) != 1 || len(res.Quarantined) != 0 {
		t.Fatalf("approve: %d %s", code, body)
	}
	if code, body := f.do(t, "POST", "/api/tools/mcp_w_weather/call", `{"city":"Oslo"}`); code != 200 || !strings.Contains(body, "sunny in Oslo") {
		t.Errorf("call once approved: %d %s", code, body)
	}
}

// description is a definition's description.
func description(t *testing.T, def json.RawMessage) string {
	t.Helper()
	var d struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		t.Fatalf("definition %s: %v", def, err)
	}
	return d.Description
}
