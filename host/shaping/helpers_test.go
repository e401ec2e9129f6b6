package shaping

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host/callresult"
)

var testCall = Call{Server: "srv", Tool: "big", Name: "mcp_srv_big", Args: []byte(`{}`)}

// returning is a final handler that returns res (or err).
func returning(res callresult.Result, err error) Handler {
	return func(context.Context, Call) (Result, error) { return Result{Result: res}, err }
}

// run calls a chain of mws around a handler returning res, and checks that
// the links did not change res itself (a link copies what it rewrites).
func run(t *testing.T, res callresult.Result, mws ...Middleware) callresult.Result {
	t.Helper()
	before := jsonOf(t, res)
	got, err := Chain(returning(res, nil), mws...)(context.Background(), testCall)
	if err != nil {
		t.Fatalf("chain: %v", err)
	}
	if after := jsonOf(t, res); after != before {
		t.Errorf("the server's result was mutated:\nbefore %s\nafter  %s", before, after)
	}
	return got.Result
}

// jsonOf is res as a client gets it: every field and every member the
// server sent, so two results that write the same JSON are the same.
func jsonOf(t *testing.T, res callresult.Result) string {
	t.Helper()
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameResult reports a difference between want and got, compared as the
// JSON a client gets.
func sameResult(t *testing.T, want, got callresult.Result) {
	t.Helper()
	if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, got)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func textResult(texts ...string) callresult.Result {
	var res callresult.Result
	for _, t := range texts {
		res.Content = append(res.Content, callresult.NewText(t))
	}
	return res
}

func onlyText(t *testing.T, res callresult.Result) string {
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
