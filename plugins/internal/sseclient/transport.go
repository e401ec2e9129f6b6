// Package sseclient is the client side of MCP's legacy HTTP+SSE transport
// (protocol 2024-11-05): one GET event stream carries everything the
// server sends, and the client POSTs its messages to the endpoint the
// stream announces first. Transport implements mcp-go's
// transport.BidirectionalInterface, so reqconn drives it as it drives
// mcp-go's streamable-HTTP transport.
//
// It replaces mcp-go's SSE client transport, which drops the server's
// requests (sampling, elicitation, roots): a message on the stream with a
// method and an id was taken for a response, found no caller and vanished,
// and the server waited for an answer that never came. Here such a request
// goes to the request handler in a goroutine of its own, and the handler's
// answer — or an error response saying why there is none — is POSTed back.
// What cannot be delivered (a message that is not JSON-RPC, a request with
// no handler, an answer the server refuses) is logged.
package sseclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Options configures New. The zero value is usable.
type Options struct {
	// EndpointWait bounds the wait for the stream's endpoint event in
	// Start (default 30 s).
	EndpointWait time.Duration
	// MaxEventBytes bounds the data of one event of the stream (0: no bound
	// of its own); a larger event ends the stream with a *TooLargeError.
	MaxEventBytes int
	// MaxServerRequests bounds the server's requests being handled at once
	// (default 256); one past it is answered with an error at once.
	MaxServerRequests int
	// Logger receives what cannot be delivered; nil discards it. Message
	// bodies are never logged above debug level.
	Logger hclog.Logger
}

// errorBodyLimit bounds how much of a refused POST's body goes into the error.
const errorBodyLimit = 512

// Transport is one legacy SSE session. Safe for concurrent use; Start once.
type Transport struct {
	url    *url.URL
	client *http.Client
	opts   Options

	mu       sync.Mutex
	started  bool
	closed   bool
	endpoint *url.URL
	version  string                                     // negotiated protocol version, for the header
	pending  map[string]chan *transport.JSONRPCResponse // requests waiting for their response, by id
	cancel   context.CancelFunc                         // ends the stream and the handlers' contexts
	onNote   func(mcp.JSONRPCNotification)
	onReq    transport.RequestHandler
	onLost   func(error)

	done    chan struct{} // closed when the stream ended
	endErr  error         // why, once done is closed
	slots   chan struct{} // one per server request being handled
	workers sync.WaitGroup
}

var (
	_ transport.BidirectionalInterface = (*Transport)(nil)
	_ transport.HTTPConnection         = (*Transport)(nil)
)

// New returns a transport to the SSE stream at rawURL; every HTTP request
// goes through client (nil: http.DefaultClient).
func New(rawURL string, client *http.Client, opts Options) (*Transport, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parse the SSE URL: %w", err)
	}
	if client == nil {
		client = http.DefaultClient
	}
	if opts.EndpointWait <= 0 {
		opts.EndpointWait = 30 * time.Second
	}
	if opts.MaxServerRequests <= 0 {
		opts.MaxServerRequests = 256
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	return &Transport{url: u, client: client, opts: opts, pending: map[string]chan *transport.JSONRPCResponse{},
		done: make(chan struct{}), slots: make(chan struct{}, opts.MaxServerRequests)}, nil
}

// Start opens the event stream and waits for its endpoint event, within
// ctx and Options.EndpointWait. The stream lives as long as ctx, or until
// Close.
func (t *Transport) Start(ctx context.Context) error {
	sctx, cancel := context.WithCancel(ctx)
	t.mu.Lock()
	switch {
	case t.closed:
		t.mu.Unlock()
		cancel()
		return transport.ErrTransportClosed
	case t.started:
		t.mu.Unlock()
		cancel()
		return errors.New("the SSE transport was already started")
	}
	t.started, t.cancel = true, cancel
	t.mu.Unlock()

	body, err := t.open(sctx)
	if err != nil {
		cancel()
		t.end(err)
		return err
	}
	endpoint := make(chan struct{})
	t.workers.Add(1)
	go t.read(sctx, body, endpoint)
	timer := time.NewTimer(t.opts.EndpointWait)
	defer timer.Stop()
	select {
	case <-endpoint:
		return nil
	case <-t.done:
		cancel()
		return fmt.Errorf("no usable endpoint on the SSE stream: %w", t.endErr)
	case <-ctx.Done():
		cancel()
		return fmt.Errorf("waiting for the SSE endpoint event: %w", ctx.Err())
	case <-timer.C:
		cancel()
		return fmt.Errorf("the server announced no endpoint on its SSE stream within %v", t.opts.EndpointWait)
	}
}

// open sends the GET and returns the event stream's body.
func (t *Transport) open(ctx context.Context) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("open the SSE stream: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("open the SSE stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		err := statusError("GET", resp)
		resp.Body.Close()
		return nil, fmt.Errorf("open the SSE stream: %w", err)
	}
	return resp.Body, nil
}

// read dispatches the stream's events until it ends, then reports why.
func (t *Transport) read(ctx context.Context, body io.ReadCloser, endpoint chan struct{}) {
	defer t.workers.Done()
	defer body.Close()
	t.lost(t.events(ctx, body, endpoint))
}

// events dispatches the stream's events until it ends, and returns why.
// An endpoint event that cannot be used ends it if it is the first (Start
// fails saying why); a later one is logged and ignored.
func (t *Transport) events(ctx context.Context, body io.Reader, endpoint chan struct{}) error {
	events := newEventReader(body, t.opts.MaxEventBytes)
	announced := false
	for {
		ev, err := events.next()
		if err != nil {
			return err
		}
		switch ev.name {
		case "endpoint":
			switch err := t.setEndpoint(string(ev.data)); {
			case err != nil && !announced:
				return err
			case err != nil:
				t.opts.Logger.Error("ignoring a new endpoint the server announced", "error", err)
			case !announced:
				announced = true
				close(endpoint)
			}
		case "message":
			t.dispatch(ctx, ev.data)
		default:
			t.opts.Logger.Debug("ignoring an SSE event of an unknown type", "event", ev.name)
		}
	}
}

// setEndpoint resolves the endpoint the stream announced. It must be on
// the stream's own origin (scheme, host and port): a server cannot send the
// client's messages elsewhere, nor over plain HTTP when the stream is
// HTTPS.
func (t *Transport) setEndpoint(data string) error {
	data = strings.TrimSpace(data)
	if data == "" {
		return errors.New("the server announced an empty endpoint")
	}
	u, err := t.url.Parse(data)
	if err != nil {
		return fmt.Errorf("the endpoint %q is not a URL: %w", data, err)
	}
	if u.Scheme != t.url.Scheme || u.Host != t.url.Host {
		return fmt.Errorf("the endpoint is on %s://%s, not on the SSE stream's %s://%s", u.Scheme, u.Host, t.url.Scheme, t.url.Host)
	}
	t.mu.Lock()
	t.endpoint = u
	t.mu.Unlock()
	return nil
}

// lost records the end of the stream, wakes whoever waits on it and, unless
// Close ended it, calls the connection-lost handler.
func (t *Transport) lost(err error) {
	t.mu.Lock()
	closed, handler := t.closed, t.onLost
	t.mu.Unlock()
	if errors.Is(err, io.EOF) {
		err = errors.New("the server ended the SSE stream")
	}
	t.end(err)
	if !closed && handler != nil {
		handler(err)
	}
}

// end closes done with err as the reason, once.
func (t *Transport) end(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.done:
	default:
		t.endErr = err
		close(t.done)
	}
}

// SetNotificationHandler sets the handler of the server's notifications,
// called in the order they arrive, from the stream's goroutine.
func (t *Transport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.mu.Lock()
	t.onNote = h
	t.mu.Unlock()
}

// SetRequestHandler sets the handler of the server's requests, each called
// in a goroutine of its own with a context that ends with the stream.
func (t *Transport) SetRequestHandler(h transport.RequestHandler) {
	t.mu.Lock()
	t.onReq = h
	t.mu.Unlock()
}

// SetConnectionLostHandler sets what is called when the stream breaks (not
// when Close ends it). The transport does not reconnect.
func (t *Transport) SetConnectionLostHandler(h func(error)) {
	t.mu.Lock()
	t.onLost = h
	t.mu.Unlock()
}

// SetProtocolVersion sets the MCP-Protocol-Version header of later POSTs.
func (t *Transport) SetProtocolVersion(v string) {
	t.mu.Lock()
	t.version = v
	t.mu.Unlock()
}

// GetSessionId returns "": the legacy transport's session lives in the
// endpoint's URL, not in a header.
func (t *Transport) GetSessionId() string { return "" }

// SendRequest POSTs req and waits for its response on the stream, until
// ctx ends or the stream does.
func (t *Transport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	key := req.ID.String()
	ch := make(chan *transport.JSONRPCResponse, 1)
	t.mu.Lock()
	if _, dup := t.pending[key]; dup {
		t.mu.Unlock()
		return nil, fmt.Errorf("request id %v is already waiting for a response", req.ID.Value())
	}
	t.pending[key] = ch
	t.mu.Unlock()
	defer t.forget(key, ch)

	if err := t.post(ctx, req, req.Header); err != nil {
		return nil, fmt.Errorf("send %s: %w", req.Method, err)
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.done:
		return nil, fmt.Errorf("no response to %s: %w", req.Method, t.endErr)
	}
}

func (t *Transport) forget(key string, ch chan *transport.JSONRPCResponse) {
	t.mu.Lock()
	if t.pending[key] == ch {
		delete(t.pending, key)
	}
	t.mu.Unlock()
}

// SendNotification POSTs n.
func (t *Transport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	if err := t.post(ctx, n, nil); err != nil {
		return fmt.Errorf("send %s: %w", n.Method, err)
	}
	return nil
}

// post sends one message to the endpoint; the server answers it on the
// stream, so the POST's own answer only says whether it was taken.
func (t *Transport) post(ctx context.Context, msg any, extra http.Header) error {
	t.mu.Lock()
	endpoint, version, closed := t.endpoint, t.version, t.closed
	t.mu.Unlock()
	if closed {
		return transport.ErrTransportClosed
	}
	if endpoint == nil {
		return errors.New("the SSE transport has no endpoint (not started)")
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode the message: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set(transport.HeaderKeyProtocolVersion, version)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		return statusError("POST", resp)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, errorBodyLimit))
	return nil
}

// statusError describes a refused HTTP request, with the start of its body;
// a 401 wraps transport.ErrUnauthorized.
func statusError(method string, resp *http.Response) error {
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	err := fmt.Errorf("%s answered HTTP %d: %s", method, resp.StatusCode, bytes.TrimSpace(snippet))
	if resp.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("%w: %w", transport.ErrUnauthorized, err)
	}
	return err
}

// Close ends the stream and every request waiting on it, and waits for the
// transport's goroutines (the stream's reader, the server requests'
// handlers, whose contexts end). Safe to call more than once.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	cancel := t.cancel
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	t.end(transport.ErrTransportClosed)
	t.workers.Wait()
	return nil
}
