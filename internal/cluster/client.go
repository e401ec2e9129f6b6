package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
)

// Client is one MCP session whose requests go to replicas picked at random
// (or to one replica, Pin), over streamable HTTP with the cluster's token.
// A request whose replica does not answer (connection refused or cut: the
// replica died) is sent again to another one, as a client behind a load
// balancer would retry; an answer of any status is never retried. Not safe
// for concurrent use: one session makes one request at a time.
type Client struct {
	c       *Cluster
	rng     *rand.Rand
	pin     int
	session string
	nextID  int
	// Retries counts requests sent again after their replica did not
	// answer.
	Retries int
	// ListChanged counts notifications/tools/list_changed received ahead
	// of responses.
	ListChanged int
	// Last is the index of the replica that answered the last request.
	Last int
	// Capabilities are what Initialize declares (none when nil), e.g.
	// {"sampling": {}} for CallAnswering.
	Capabilities map[string]any

	own *http.Client // OwnConnection's; nil: the cluster's pool
}

// OwnConnection makes the client send its requests over a connection of
// its own, kept open between them, as a separate MCP client would (by
// default the cluster's clients share one pool of connections).
func (cl *Client) OwnConnection() {
	cl.own = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
}

// Close closes the client's own connection, if it has one.
func (cl *Client) Close() {
	if cl.own != nil {
		cl.own.CloseIdleConnections()
	}
}

// NewClient returns a client spreading its requests at random (seeded).
func (c *Cluster) NewClient(seed uint64) *Client {
	return &Client{c: c, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), pin: -1}
}

// Pin sends every request to replica i (-1: at random again).
func (cl *Client) Pin(i int) { cl.pin = i }

// Session returns the session id (empty before Initialize).
func (cl *Client) Session() string { return cl.session }

// HTTPError is an answer that is not 200 (or 202), e.g. 503 while the
// session store is down.
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body) }

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Initialize starts the session (and sends notifications/initialized).
func (cl *Client) Initialize(ctx context.Context) error {
	cl.session = ""
	caps := cl.Capabilities
	if caps == nil {
		caps = map[string]any{}
	}
	if _, err := cl.Request(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": caps,
		"clientInfo": map[string]any{"name": "cluster-client", "version": "1"},
	}); err != nil {
		return err
	}
	_, _, err := cl.send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return err
}

// Request sends one request and returns its result.
func (cl *Client) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	cl.nextID++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": cl.nextID, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	resp, header, err := cl.send(ctx, body)
	if err != nil {
		return nil, err
	}
	if method == "initialize" {
		cl.session = header.Get("Mcp-Session-Id")
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(resp, &msg); err != nil {
		return nil, fmt.Errorf("%s: bad answer %q: %w", method, resp, err)
	}
	if msg.Error != nil {
		return nil, msg.Error
	}
	return msg.Result, nil
}

// CallTool calls a tool and returns its text and isError.
func (cl *Client) CallTool(ctx context.Context, name string, args map[string]any) (string, bool, error) {
	res, err := cl.Request(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", false, err
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", false, fmt.Errorf("tools/call %s: bad result %s: %w", name, res, err)
	}
	var text strings.Builder
	for _, c := range r.Content {
		text.WriteString(c.Text)
	}
	return text.String(), r.IsError, nil
}

// ToolNames lists the session's tools.
func (cl *Client) ToolNames(ctx context.Context) ([]string, error) {
	res, err := cl.Request(ctx, "tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	return names, nil
}

// send POSTs body to a replica, moving on to another one while replicas do
// not answer; it returns the response message (the last event of a
// stream, notifications counted) and the headers.
func (cl *Client) send(ctx context.Context, body []byte) ([]byte, http.Header, error) {
	order := cl.order()
	var lastErr error
	for n, i := range order {
		if n > 0 {
			cl.Retries++
		}
		msg, header, err := cl.post(ctx, cl.c.Replicas[i].URL, body)
		if err == nil {
			cl.Last = i
			return msg, header, nil
		}
		var he *HTTPError
		if errors.As(err, &he) || ctx.Err() != nil {
			cl.Last = i
			return nil, nil, err
		}
		lastErr = err
	}
	return nil, nil, fmt.Errorf("%w: %v", errNoReplica, lastErr)
}

// order is the replicas to try: the pinned one, or all in random order.
func (cl *Client) order() []int {
	if cl.pin >= 0 {
		return []int{cl.pin}
	}
	return cl.rng.Perm(len(cl.c.Replicas))
}

func (cl *Client) post(ctx context.Context, url string, body []byte) ([]byte, http.Header, error) {
	resp, err := cl.do(ctx, url, body)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err // cut mid-answer: the replica died
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return nil, resp.Header, nil
	case strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"):
		events := sseData(string(b))
		if len(events) == 0 {
			return nil, nil, fmt.Errorf("an event stream without a message: %q", b) // cut: the replica died
		}
		for _, e := range events[:len(events)-1] {
			if strings.Contains(e, `"notifications/tools/list_changed"`) {
				cl.ListChanged++
			}
		}
		return []byte(events[len(events)-1]), resp.Header, nil
	}
	return b, resp.Header, nil
}

// sseData returns the data of each event of an event stream.
func sseData(stream string) []string {
	var out []string
	for _, ev := range strings.Split(stream, "\n\n") {
		var data []string
		for _, line := range strings.Split(ev, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
		if len(data) > 0 {
			out = append(out, strings.Join(data, "\n"))
		}
	}
	return out
}

// Answer computes the client's result for a request the gateway sends it
// during a call (sampling/createMessage, elicitation/create, roots/list).
type Answer func(method string, params json.RawMessage) (any, error)

// CallAnswering calls a tool on replica on and reads its answer as a
// stream; each request the gateway sends the client meanwhile is answered
// by POSTing the result to replica via (as a client behind a load balancer
// may). It returns the call's result and the methods it was asked.
func (cl *Client) CallAnswering(ctx context.Context, on, via int, name string, args map[string]any, answer Answer) (json.RawMessage, []string, error) {
	cl.nextID++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": cl.nextID, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		return nil, nil, err
	}
	resp, err := cl.do(ctx, cl.c.Replicas[on].URL, body)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var asked []string
	events := bufio.NewScanner(resp.Body)
	events.Buffer(nil, 16<<20)
	for events.Scan() {
		data, ok := strings.CutPrefix(events.Text(), "data: ")
		if !ok {
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *RPCError       `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			return nil, asked, fmt.Errorf("bad event %q: %w", data, err)
		}
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			asked = append(asked, msg.Method)
			if err := cl.respond(ctx, via, msg.ID, msg.Method, msg.Params, answer); err != nil {
				return nil, asked, err
			}
		case msg.Method != "": // a notification
		case msg.Error != nil:
			return nil, asked, msg.Error
		default:
			return msg.Result, asked, nil
		}
	}
	return nil, asked, fmt.Errorf("the stream ended without the call's answer: %v", events.Err())
}

// respond POSTs the client's answer to one request of the gateway's to
// replica via, which must accept it (202).
func (cl *Client) respond(ctx context.Context, via int, id json.RawMessage, method string, params json.RawMessage, answer Answer) error {
	reply := map[string]any{"jsonrpc": "2.0", "id": id}
	if result, err := answer(method, params); err != nil {
		reply["error"] = map[string]any{"code": -32603, "message": err.Error()}
	} else {
		reply["result"] = result
	}
	body, err := json.Marshal(reply)
	if err != nil {
		return err
	}
	resp, err := cl.do(ctx, cl.c.Replicas[via].URL, body)
	if err != nil {
		return fmt.Errorf("answering %s on replica %d: %w", method, via, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("answering %s on replica %d: HTTP %d", method, via, resp.StatusCode)
	}
	return nil
}

// do POSTs body with the session's headers and returns the open response
// (status 200 or 202; anything else is an *HTTPError).
func (cl *Client) do(ctx context.Context, url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if tok := cl.c.Token.Reveal(); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if cl.session != "" {
		req.Header.Set("Mcp-Session-Id", cl.session)
	}
	hc := cl.c.http
	if cl.own != nil {
		hc = cl.own
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, &HTTPError{Status: resp.StatusCode, Body: string(b)}
	}
	return resp, nil
}

// Send POSTs one message (a response or notification) to replica i and
// returns the HTTP status (202 expected).
func (cl *Client) Send(ctx context.Context, i int, msg any) (int, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, err
	}
	resp, err := cl.do(ctx, cl.c.Replicas[i].URL, body)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
