package routing

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/lib/rawjson"
)

// noServers is a host whose servers are named but none runs.
type noServers struct{}

func (noServers) Names() []string                          { return []string{"x"} }
func (noServers) Running(string) bool                      { return false }
func (noServers) Server(string) (*supervisor.Server, bool) { return nil, false }
func (noServers) Capabilities(string) (Capabilities, bool) { return Capabilities{}, false }
func (noServers) CallTimeout(string) time.Duration         { return 0 }
func (noServers) Answered(Answer)                          {}
func (noServers) Roots(string) json.RawMessage             { return json.RawMessage(`{"roots":[]}`) }

// A request's progress comes back to its own handlers with the client's
// token in place of the one the server got.
func TestProgressGoesBackWithTheClientsToken(t *testing.T) {
	r := New(noServers{}, hclog.NewNullLogger())
	var got []Notification
	h := &ClientHandlers{Notify: func(n Notification) { got = append(got, n) }}
	f, sent := r.Begin("s1", "", "x", json.RawMessage(`{"_meta":{"progressToken":"abc"}}`), h)
	defer r.End(f)
	token, ok := rawjson.String(sent, "_meta", "progressToken")
	if !ok || token == "abc" {
		t.Fatalf("params sent %s: want the client's token replaced", sent)
	}
	r.Notification("x", "notifications/progress", json.RawMessage(`{"progressToken":"`+token+`","progress":1}`))
	if len(got) != 1 {
		t.Fatalf("%d notifications delivered, want 1", len(got))
	}
	if back, _ := rawjson.String(got[0].Params, "progressToken"); back != "abc" {
		t.Errorf("progress delivered %s: want the client's token abc", got[0].Params)
	}
	r.Notification("y", "notifications/progress", json.RawMessage(`{"progressToken":"`+token+`","progress":2}`))
	if len(got) != 1 {
		t.Errorf("progress of another server with the token was delivered: %v", got[1:])
	}
}

// A server request no session can be told apart as the cause of is
// answered -32601.
func TestRequestOfTwoPossibleSessionsIsRefused(t *testing.T) {
	r := New(noServers{}, hclog.NewNullLogger())
	answer := func(context.Context, ServerRequest) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	h := &ClientHandlers{Sampling: answer}
	f1, _ := r.Begin("s1", "", "x", nil, h)
	defer r.End(f1)
	req := supervisor.ServerRequest{Method: "sampling/createMessage"}
	if _, err := r.Request(context.Background(), "x", req); err != nil {
		t.Fatalf("one session in flight: %v", err)
	}
	f2, _ := r.Begin("s2", "", "x", nil, h)
	defer r.End(f2)
	_, err := r.Request(context.Background(), "x", req)
	var re *RPCError
	if !errors.As(err, &re) || re.Code != codeMethodNotFound {
		t.Errorf("two sessions in flight: error %v, want -32601", err)
	}
}
