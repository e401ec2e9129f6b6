package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("é", maxField)
	for _, c := range []struct {
		name string
		msg  string
		want summary
	}{
		{"request", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`,
			summary{Kind: "request", Method: "tools/call", ID: "7"}},
		{"string id", `{"jsonrpc":"2.0","id":"a1","method":"ping"}`,
			summary{Kind: "request", Method: "ping", ID: `"a1"`}},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
			summary{Kind: "notification", Method: "notifications/tools/list_changed"}},
		{"response", `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
			summary{Kind: "response", ID: "7"}},
		{"error", `{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"no such method"}}`,
			summary{Kind: "error", ID: "8"}},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
			summary{Kind: "error"}},
		{"batch", ` [{"jsonrpc":"2.0","id":1,"method":"ping"}]`, summary{Kind: "batch"}},
		{"invalid", `not json`, summary{Kind: "invalid"}},
		{"long method", `{"jsonrpc":"2.0","method":"` + long + `"}`,
			summary{Kind: "notification", Method: long[:maxField] + "…"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.want.Bytes = len(c.msg)
			if diff := cmp.Diff(c.want, summarize(json.RawMessage(c.msg))); diff != "" {
				t.Errorf("summarize(%s) (-want +got):\n%s", c.msg, diff)
			}
		})
	}
}
