package gateway

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
)

// emptyHost is a started host with no servers.
func emptyHost(t *testing.T) *host.Host {
	t.Helper()
	dir := t.TempDir()
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "c.json"), AllowMissing: true,
		UserData: []byte(`{"tools":{"mcp":{"enabled":true,"servers":{}}}}`), SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewFromLoaded(l, host.Options{ConfigDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	t.Cleanup(func() { h.Close() })
	return h
}

// recordSink keeps what a request answered and runs onRespond as the
// answer is written.
type recordSink struct {
	answers   []string
	onRespond func()
}

func (s *recordSink) notify([]byte) bool { return false }
func (s *recordSink) respond(msg []byte) {
	s.answers = append(s.answers, string(msg))
	if s.onRespond != nil {
		s.onRespond()
	}
}

func pingWithID(g *Gateway, id string, out sink) *exchange {
	return &exchange{g: g, msg: message{JSONRPC: "2.0", ID: json.RawMessage(id), Method: "ping"}, out: out}
}

// While a request is admitted and unanswered, another with its id is
// refused at once and one with another id is not; the id is free again by
// the time the answer is written, so a client that sends the id again as
// soon as it reads the answer is served.
func TestAdmit(t *testing.T) {
	g := New(emptyHost(t), Options{})
	ctx := context.Background()
	first := &recordSink{}
	run, ok := g.admit(ctx, pingWithID(g, "7", first))
	if !ok {
		t.Fatal("the first request with id 7 was refused")
	}
	dup := &recordSink{}
	if _, ok := g.admit(ctx, pingWithID(g, "7", dup)); ok || len(dup.answers) != 1 ||
		!strings.Contains(dup.answers[0], `"id":7,"error":{"code":-32600`) || !strings.Contains(dup.answers[0], "still in progress") {
		t.Errorf("a second request with id 7: admitted %v, answered %q; want refused with -32600", ok, dup.answers)
	}
	other := &recordSink{}
	runOther, ok := g.admit(ctx, pingWithID(g, `"7"`, other)) // a string is another id
	if !ok {
		t.Fatalf(`a request with id "7" was refused: %q`, other.answers)
	}
	runOther()
	reused := &recordSink{}
	first.onRespond = func() {
		if run, ok := g.admit(ctx, pingWithID(g, "7", reused)); ok {
			run()
		}
	}
	run()
	if len(first.answers) != 1 || first.answers[0] != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Errorf("the first request answered %q", first.answers)
	}
	if len(reused.answers) != 1 || reused.answers[0] != `{"jsonrpc":"2.0","id":7,"result":{}}` {
		t.Errorf("id 7 sent again as its answer was written: %q; want the ping answered", reused.answers)
	}
}
