package shaping

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

var testCall = Call{Server: "srv", Tool: "big", Name: "mcp_srv_big", Args: []byte(`{}`)}

// returning is a final handler that returns res (or err).
func returning(res *mcp.CallToolResult, err error) Handler {
	return func(context.Context, Call) (Result, error) { return Result{MCP: res}, err }
}

// run calls a chain of mws around a handler returning res.
func run(t *testing.T, res *mcp.CallToolResult, mws ...Middleware) *mcp.CallToolResult {
	t.Helper()
	got, err := Chain(returning(res, nil), mws...)(context.Background(), testCall)
	if err != nil {
		t.Fatalf("chain: %v", err)
	}
	return got.MCP
}

func textResult(texts ...string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	for _, t := range texts {
		res.Content = append(res.Content, mcp.NewTextContent(t))
	}
	return res
}

func onlyText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	text, n := textOf(res)
	if n != 1 {
		t.Fatalf("want exactly one text item, got %d: %+v", n, res.Content)
	}
	return text
}

// memSaver records saved payloads; kinds in fail fail with failErr.
type memSaver struct {
	mu    sync.Mutex
	saved map[string]string // path → payload
	kinds []string
	fail  map[string]bool
}

func newMemSaver(failKinds ...string) *memSaver {
	s := &memSaver{saved: map[string]string{}, fail: map[string]bool{}}
	for _, k := range failKinds {
		s.fail[k] = true
	}
	return s
}

var errDiskFull = errors.New("disk full")

func (s *memSaver) Save(_ context.Context, kind, server, tool, payload string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kinds = append(s.kinds, kind)
	if s.fail[kind] {
		return "", errDiskFull
	}
	path := fmt.Sprintf("/ws/.artifacts/%s/%s__%s-%d.txt", kind, server, tool, len(s.saved))
	s.saved[path] = payload
	return path, nil
}

// only returns the single saved path and payload.
func (s *memSaver) only(t *testing.T) (string, string) {
	t.Helper()
	if len(s.saved) != 1 {
		t.Fatalf("want one saved payload, got %d", len(s.saved))
	}
	for p, v := range s.saved {
		return p, v
	}
	return "", ""
}

func repeat(s string, n int) string { return strings.Repeat(s, n) }

func callWith(rec *record) Call {
	c := testCall
	c.rec = rec
	return c
}
