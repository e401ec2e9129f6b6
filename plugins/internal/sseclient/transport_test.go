package sseclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/syncbuf"
)

// waitBound bounds every wait of these tests; what they wait for takes
// milliseconds.
const waitBound = 20 * time.Second

// fakeServer is a legacy SSE server the test drives: what it puts on
// events is written to the open stream, and every POST body lands on posts.
type fakeServer struct {
	*httptest.Server
	endpoint string        // the endpoint event's data ("": no endpoint event)
	events   chan string   // raw stream text to write
	posts    chan []byte   // POSTed bodies
	getCode  int           // the GET's status (0: 200)
	postCode int           // the POSTs' status (0: 202)
	end      chan struct{} // closed: the stream ends
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	f := &fakeServer{endpoint: "/message?sessionId=1", events: make(chan string, 16), posts: make(chan []byte, 16), end: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			f.stream(w, r)
		case http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			f.posts <- body
			w.WriteHeader(cmpOr(f.postCode, http.StatusAccepted))
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) stream(w http.ResponseWriter, r *http.Request) {
	if f.getCode != 0 {
		http.Error(w, "no", f.getCode)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if f.endpoint != "" {
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", f.endpoint)
	}
	w.(http.Flusher).Flush()
	for {
		select {
		case ev := <-f.events:
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		case <-f.end:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// send writes one message event.
func (f *fakeServer) send(msg string) { f.events <- "event: message\ndata: " + msg + "\n\n" }

// post returns the next POSTed body.
func (f *fakeServer) post(t *testing.T) map[string]any {
	t.Helper()
	select {
	case b := <-f.posts:
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("POSTed %s: %v", b, err)
		}
		return m
	case <-time.After(waitBound):
		t.Fatal("nothing was POSTed")
		return nil
	}
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// started is a started transport to f, closed when the test ends; logs
// go to the returned buffer.
func started(t *testing.T, f *fakeServer, opts Options, wire func(*Transport)) (*Transport, *syncbuf.Buffer) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	opts.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})
	tr, err := New(f.URL+"/sse", f.Client(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if wire != nil {
		wire(tr)
	}
	if opts.EndpointWait == 0 {
		opts.EndpointWait = waitBound
	}
	if err := tr.Start(context.Background()); err != nil { // the stream lives as long as Start's context
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr, logs
}

// A server's request goes to the request handler with its params as the
// server wrote them, and the handler's answer is POSTed back under the
// server's id; a request while one of the client's with the same id is
// pending is not taken for its response (mcp-go's SSE transport dropped
// server requests, taking them for responses).
func TestServerRequestsAreAnswered(t *testing.T) {
	f := newFakeServer(t)
	got := make(chan transport.JSONRPCRequest, 1)
	tr, _ := started(t, f, Options{}, func(tr *Transport) {
		tr.SetRequestHandler(func(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
			got <- req
			return &transport.JSONRPCResponse{Result: json.RawMessage(`{"model":"m","role":"assistant","content":{"type":"text","text":"hi"}}`)}, nil
		})
	})
	call := make(chan *transport.JSONRPCResponse, 1)
	go func() {
		resp, err := tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/call"})
		if err != nil {
			t.Errorf("SendRequest: %v", err)
		}
		call <- resp
	}()
	if m := f.post(t); m["method"] != "tools/call" {
		t.Fatalf("the client POSTed %v; want its tools/call", m)
	}
	f.send(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":12345678901234567890}}`)
	select {
	case req := <-got:
		if req.Method != "sampling/createMessage" || req.ID.Value() != int64(1) || string(req.Params.(json.RawMessage)) != `{"maxTokens":12345678901234567890}` {
			t.Errorf("the handler got %+v; want the server's request with its params as written", req)
		}
	case <-time.After(waitBound):
		t.Fatal("the request handler was not called")
	}
	answer := f.post(t)
	if answer["id"] != float64(1) || answer["result"].(map[string]any)["model"] != "m" || answer["method"] != nil {
		t.Errorf("the client POSTed %v; want the handler's result under id 1", answer)
	}
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	select {
	case resp := <-call:
		if resp == nil || string(resp.Result) != `{"content":[]}` {
			t.Errorf("the client's request got %+v; want its own response", resp)
		}
	case <-time.After(waitBound):
		t.Fatal("the client's request got no response")
	}
}

// A server request the client cannot answer — no handler, a handler
// error — is answered with an error response and logged, never dropped.
func TestUnanswerableServerRequestsGetAnError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler transport.RequestHandler
		code    float64
		log     string
	}{
		{"no handler", nil, mcp.METHOD_NOT_FOUND, "this client takes no requests"},
		{"handler error", func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
			return nil, errors.New("no session to ask")
		}, mcp.INTERNAL_ERROR, "no session to ask"},
		{"no answer", func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
			return nil, nil
		}, mcp.INTERNAL_ERROR, "the client gave no answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t)
			_, logs := started(t, f, Options{}, func(tr *Transport) {
				if tc.handler != nil {
					tr.SetRequestHandler(tc.handler)
				}
			})
			f.send(`{"jsonrpc":"2.0","id":"r-1","method":"roots/list"}`)
			answer := f.post(t)
			e, _ := answer["error"].(map[string]any)
			if answer["id"] != "r-1" || e == nil || e["code"] != tc.code || !strings.Contains(e["message"].(string), "roots/list") {
				t.Errorf("the client POSTed %v; want error %v about roots/list under id r-1", answer, tc.code)
			}
			if !strings.Contains(logs.String(), tc.log) || !strings.Contains(logs.String(), "roots/list") {
				t.Errorf("log %q; want a line naming roots/list and %q", logs.String(), tc.log)
			}
		})
	}
}

// Notifications reach the handler in stream order; messages that are not
// JSON-RPC are logged.
func TestNotificationsInOrder(t *testing.T) {
	f := newFakeServer(t)
	notes := make(chan string, 8)
	_, logs := started(t, f, Options{}, func(tr *Transport) {
		tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
			notes <- fmt.Sprint(n.Params.AdditionalFields["progress"])
		})
	})
	f.send(`not json`)
	for i := 1; i <= 5; i++ {
		f.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":%d}}`, i))
	}
	for i := 1; i <= 5; i++ {
		select {
		case got := <-notes:
			if got != fmt.Sprint(i) {
				t.Fatalf("notification %d has progress %s", i, got)
			}
		case <-time.After(waitBound):
			t.Fatalf("notification %d did not arrive", i)
		}
	}
	if !strings.Contains(logs.String(), "not a JSON-RPC object") {
		t.Errorf("log %q; want the message that is not JSON-RPC mentioned", logs.String())
	}
}

// When the stream ends, a request waiting for its response fails at once
// and the connection-lost handler hears why; an event over MaxEventBytes
// ends the stream.
func TestStreamEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(f *fakeServer)
		want string
	}{
		{"server ends the stream", func(f *fakeServer) { close(f.end) }, "ended the SSE stream"},
		{"event over the limit", func(f *fakeServer) { f.send(`"` + strings.Repeat("x", 100) + `"`) }, "message limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t)
			lost := make(chan error, 1)
			tr, _ := started(t, f, Options{MaxEventBytes: 64}, func(tr *Transport) {
				tr.SetConnectionLostHandler(func(err error) { lost <- err })
			})
			failed := make(chan error, 1)
			go func() {
				_, err := tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(7)), Method: "ping"})
				failed <- err
			}()
			f.post(t)
			tc.end(f)
			for _, ch := range []chan error{lost, failed} {
				select {
				case err := <-ch:
					if err == nil || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("error %v; want one saying %q", err, tc.want)
					}
				case <-time.After(waitBound):
					t.Fatal("the end of the stream went unnoticed")
				}
			}
		})
	}
}

// Start fails, saying why, when the GET is refused, when the stream
// announces an endpoint on another host, and when it announces none in
// time.
func TestStartFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		set     func(f *fakeServer)
		wait    time.Duration
		want    string
		wantErr error
	}{
		{"401", func(f *fakeServer) { f.getCode = http.StatusUnauthorized }, 0, "HTTP 401", transport.ErrUnauthorized},
		{"500", func(f *fakeServer) { f.getCode = http.StatusInternalServerError }, 0, "HTTP 500", nil},
		{"endpoint elsewhere", func(f *fakeServer) { f.endpoint = "http://evil.example/message" }, 0, "evil.example", nil},
		{"no endpoint", func(f *fakeServer) { f.endpoint = "" }, 200 * time.Millisecond, "no endpoint", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t)
			tc.set(f)
			tr, err := New(f.URL+"/sse", f.Client(), Options{EndpointWait: cmpOrDuration(tc.wait, waitBound)})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			err = tr.Start(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Errorf("Start: %v; want an error saying %q", err, tc.want)
			}
		})
	}
}

func cmpOrDuration(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// Close ends the handlers of server requests in progress (their context
// ends), waits for them and for the stream's reader, and fails requests
// waiting for a response.
func TestCloseEndsEverything(t *testing.T) {
	f := newFakeServer(t)
	var handling sync.WaitGroup
	handling.Add(1)
	tr, _ := started(t, f, Options{}, func(tr *Transport) {
		tr.SetRequestHandler(func(ctx context.Context, _ transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
			handling.Done()
			<-ctx.Done()
			return nil, ctx.Err()
		})
	})
	f.send(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`)
	handling.Wait()
	waiting := make(chan error, 1)
	go func() {
		_, err := tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2)), Method: "ping"})
		waiting <- err
	}()
	f.post(t)
	closed := make(chan error, 1)
	go func() { closed <- tr.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(waitBound):
		t.Fatal("Close did not return")
	}
	select {
	case err := <-waiting:
		if err == nil {
			t.Error("a request waiting for its response got none and no error")
		}
	case <-time.After(waitBound):
		t.Fatal("a request waiting for its response still waits after Close")
	}
}

// Past MaxServerRequests handled at once, a server request is answered
// with an error at once, and logged; the ones being handled are not
// disturbed.
func TestServerRequestsBeyondTheLimit(t *testing.T) {
	f := newFakeServer(t)
	release := make(chan struct{})
	_, logs := started(t, f, Options{MaxServerRequests: 1}, func(tr *Transport) {
		tr.SetRequestHandler(func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
			<-release
			return &transport.JSONRPCResponse{Result: json.RawMessage(`{"roots":[]}`)}, nil
		})
	})
	f.send(`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)
	f.send(`{"jsonrpc":"2.0","id":2,"method":"roots/list"}`)
	refused := f.post(t)
	if e, _ := refused["error"].(map[string]any); refused["id"] != float64(2) || e == nil || !strings.Contains(e["message"].(string), "already waiting") {
		t.Errorf("the second request was answered %v; want an error saying requests are already waiting", refused)
	}
	close(release)
	if first := f.post(t); first["id"] != float64(1) || first["result"] == nil {
		t.Errorf("the first request was answered %v; want the handler's result", first)
	}
	if !strings.Contains(logs.String(), "already waiting") {
		t.Errorf("log %q; want the refusal logged", logs.String())
	}
}
