package gateway_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// Progress a server writes after its answer (mcp-go's stdio server writes
// notifications from a goroutine of their own) no longer has the request's
// channel and goes to the session's stream. A client opens that stream in
// the background after initialize, so it may not be open yet: the gateway
// holds the notification and sends it first thing when the stream opens.
func TestProgressAfterTheAnswerWaitsForTheStream(t *testing.T) {
	f := newFake(0)
	tokens := make(chan mcp.ProgressToken, 1)
	f.AddTool(mcp.NewTool("late", mcp.WithDescription("Answers; the test sends its progress afterwards.")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var tok mcp.ProgressToken
			if req.Params.Meta != nil {
				tok = req.Params.Meta.ProgressToken
			}
			tokens <- tok
			return mcp.NewToolResultText("done"), nil
		})
	h, tr := fakeHost(t, map[string]*fake{"s": f}, nil)
	url, _ := serveHTTP(t, h)
	c := newRaw(t, url)
	c.initialize()
	r := c.request(1, "tools/call", `{"name":"mcp_s_late","arguments":{},"_meta":{"progressToken":"tok-1"}}`)
	if !strings.Contains(r.body, `"done"`) || strings.Contains(r.body, "notifications/progress") {
		t.Fatalf("call: %d %q", r.status, r.body)
	}
	tok, ok := (<-tokens).(string)
	if !ok {
		t.Fatal("the server got no progress token")
	}
	// The answer is out; the session has no stream yet.
	tr.Notify("s", json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+strconv.Quote(tok)+`,"progress":1,"total":1}}`))

	lines := openStream(t, url, c.session)
	waitLine(t, lines, `"progressToken":"tok-1"`, "the progress sent after the answer, on the stream opened after it")
}
