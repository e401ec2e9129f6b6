package chat_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/plughost/plughost/chat"
	"github.com/plughost/plughost/internal/fakeopenai"
	"github.com/plughost/plughost/lib/secret"
)

const testKey = "sk-test-9f8e7d6c5b4a"

func complete(c *chat.Client) (chat.Completion, error) {
	return c.Complete(context.Background(), chat.Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}}, nil)
}

// TestEndpointErrors: each failure of the endpoint says what is wrong and
// what to do, and never shows the key.
func TestEndpointErrors(t *testing.T) {
	masker := secret.NewMasker()
	masker.Add("TEST_API_KEY", testKey)
	answer := func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Text: "hello"} }
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/v1"
	}()
	for name, c := range map[string]struct {
		url   string
		srv   fakeopenai.Options
		key   string
		model string
		kind  chat.ErrorKind
		says  []string
	}{
		"unreachable": {url: closed, kind: chat.Unreachable, says: []string{"cannot reach the model endpoint", "--base-url"}},
		"no key":      {srv: fakeopenai.Options{Key: testKey}, kind: chat.Unauthorized, says: []string{"HTTP 401", "no API key was sent", "--api-key-env"}},
		"wrong key, quoted back": {srv: fakeopenai.Options{Key: "sk-other-key-123", EchoAuthorization: true}, key: testKey,
			kind: chat.Unauthorized, says: []string{"HTTP 401", "check the API key in $TEST_API_KEY", "Bearer ****"}},
		"model not found": {srv: fakeopenai.Options{Models: []string{"llama3.2", "qwen2.5"}}, model: "llama9",
			kind: chat.ModelNotFound, says: []string{`model "llama9" not found`, "it serves: llama3.2, qwen2.5", "--model"}},
		"wrong path": {url: "/nope", kind: chat.NotFound, says: []string{"answered 404", "API root"}},
	} {
		t.Run(name, func(t *testing.T) {
			url := c.url
			if url == "" || strings.HasPrefix(url, "/") {
				url = fakeopenai.Start(t, c.srv, answer).URL + c.url
			}
			model := c.model
			if model == "" {
				model = "llama3.2"
			}
			_, err := complete(&chat.Client{BaseURL: url, Model: model, Key: secret.String(c.key), KeyEnv: "TEST_API_KEY", Masker: masker})
			var e *chat.EndpointError
			if !errors.As(err, &e) || e.Kind != c.kind {
				t.Fatalf("err = %v, want an EndpointError of kind %d", err, c.kind)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

// TestClientSendsKeyAndReadsBothForms: the key goes as a bearer token; a
// streamed and a whole answer read the same.
func TestClientSendsKeyAndReadsBothForms(t *testing.T) {
	for _, stream := range []bool{true, false} {
		reply := fakeopenai.Reply{Text: "héllo wörld", ToolCalls: []fakeopenai.ToolCall{{ID: "a", Name: "f", Arguments: `{"x": 1}`}},
			Usage: &fakeopenai.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}}
		srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true, Key: testKey}, func(fakeopenai.Request) fakeopenai.Reply { return reply })
		var deltas []string
		got, err := (&chat.Client{BaseURL: srv.URL, Model: "m", Key: testKey, Stream: stream}).Complete(context.Background(),
			chat.Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}}, func(d string) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatal(err)
		}
		m := got.Message
		if m.Content != "héllo wörld" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"x": 1}` || m.ToolCalls[0].ID != "a" {
			t.Errorf("stream=%v: message %+v", stream, m)
		}
		if got.Usage == nil || got.Usage.TotalTokens != 7 {
			t.Errorf("stream=%v: usage %+v", stream, got.Usage)
		}
		if strings.Join(deltas, "") != "héllo wörld" || (stream && len(deltas) < 2) {
			t.Errorf("stream=%v: deltas %q", stream, deltas)
		}
		if r := srv.Requests(); len(r) != 1 || r[0].Stream != stream {
			t.Errorf("stream=%v: the request asked stream=%v", stream, r[0].Stream)
		}
	}
}
