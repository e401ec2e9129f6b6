package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// vendorToolName is the tool of -vendor-result.
const vendorToolName = "vendor_result"

// VendorResult is the result the vendor_result tool answers, exactly: what
// mcp-go's types do not model, at every level — a vendor member and a member
// of a newer spec at the top, the result's _meta with a number float64 cannot
// hold, items with members of their own, annotations with one, an embedded
// resource with one. mcp-go's server can only send what its types hold, so
// this answer is written by the test server itself (interceptStdio, vendorHTTP);
// mcp-go still lists the tool.
const VendorResult = `{"content":[` +
	`{"type":"text","text":"vendor text","x-lang":"en","annotations":{"audience":["user"],"priority":0.5,"x-reviewed":true},` +
	`"_meta":{"io.example/span":"s1","n":12345678901234567890}},` +
	`{"type":"image","data":"aGVsbG8=","mimeType":"image/png","x-alt":"a cat"},` +
	`{"type":"resource","resource":{"uri":"https://example.com/doc","mimeType":"text/plain","text":"doc body","x-etag":"e1"},"x-origin":"cache"}],` +
	`"structuredContent":{"n":1,"tags":["a","b"]},` +
	`"_meta":{"io.example/trace":{"id":"t-1","sampled":true,"big":12345678901234567890}},` +
	`"x-trace":{"spans":[{"name":"db","ms":3.50}]},"nextSpecField":["kept"],"isError":false}`

// vendorTool is the tool mcp-go lists for -vendor-result; its handler runs
// only if a call slips past the interception (then the test sees the
// difference).
func vendorTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool(vendorToolName, mcp.WithDescription("Returns a result with members mcp-go does not model (VendorResult).")),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("not intercepted"), nil
		},
	}
}

// vendorTaskID is the task a task-augmented call of vendor_result creates.
const vendorTaskID = "vendor-task"

// vendorCall returns the response to msg when it is a tools/call of
// vendor_result — VendorResult, or with a "task" member the task
// vendorTaskID, already completed — or the tasks/result of that task
// (VendorResult again); else nil.
func vendorCall(msg []byte) []byte {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name   string          `json:"name"`
			Task   json.RawMessage `json:"task"`
			TaskID string          `json:"taskId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 {
		return nil
	}
	result := ""
	switch {
	case req.Method == string(mcp.MethodToolsCall) && req.Params.Name == vendorToolName && len(req.Params.Task) > 0:
		result = `{"task":{"taskId":"` + vendorTaskID + `","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000}}`
	case req.Method == string(mcp.MethodToolsCall) && req.Params.Name == vendorToolName,
		req.Method == "tasks/result" && req.Params.TaskID == vendorTaskID:
		result = VendorResult
	default:
		return nil
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`)
}

// interceptions returns what answers requests before mcp-go sees them
// (vendorCall, leakCall), or nil when o needs none: the response to a
// message, or nil to pass it on.
func interceptions(o options) func(msg []byte) []byte {
	var answers []func([]byte) []byte
	if o.vendorResult {
		answers = append(answers, vendorCall)
	}
	if o.leakEnv != "" {
		answers = append(answers, leakCall(o.leakEnv))
	}
	if len(answers) == 0 {
		return nil
	}
	return func(msg []byte) []byte {
		for _, a := range answers {
			if resp := a(msg); resp != nil {
				return resp
			}
		}
		return nil
	}
}

// interceptStdio returns the reader mcp-go's stdio server reads: in, but
// for requests answer answers, whose responses go to out directly.
func interceptStdio(in io.Reader, out io.Writer, answer func(msg []byte) []byte) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReader(in)
		for {
			line, err := r.ReadBytes('\n')
			if resp := answer(bytes.TrimSpace(line)); resp != nil {
				if _, werr := out.Write(append(resp, '\n')); werr != nil {
					err = werr
				}
			} else if len(line) > 0 {
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// vendorHTTP answers POSTed tools/call requests of vendor_result itself and
// passes everything else to next.
func vendorHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if resp := vendorCall(body); resp != nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(resp)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}
