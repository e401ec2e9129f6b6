package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
)

// ServeFloorRelay runs the least an MCP gateway written in Go with net/http
// must do per tools/call, as bench cpu's floor: it starts server (a stdio MCP
// server), initializes it, and serves streamable HTTP on listen, printing
// "listening <url>" to out. Each request is read whole, decoded once, sent
// to the server under an id of the relay's own, and its answer decoded once
// and written back under the client's id with one write. initialize is
// answered by the relay itself and notifications are accepted and dropped;
// there is no session, token, routing, shaping, log or metric. It is not a
// gateway: it is the bound any gateway built on the same pieces stays above.
// It returns when ctx ends or the server exits.
func ServeFloorRelay(ctx context.Context, server []string, listen string, out io.Writer) error {
	if len(server) == 0 {
		return errors.New("relay floor: no server command")
	}
	cmd := exec.CommandContext(ctx, server[0], server[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("relay floor: start %s: %w", server[0], err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	r := &floorRelay{stdin: stdin, pending: map[string]chan []byte{}}
	go r.readLoop(bufio.NewReaderSize(stdout, 64<<10))
	init := json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"relay-floor","version":"1"}}`)
	if _, err := r.call(ctx, "initialize", init); err != nil {
		return fmt.Errorf("relay floor: initialize: %w", err)
	}
	if err := r.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "listening http://%s/mcp\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(r.serveHTTP)}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// floorRelay is ServeFloorRelay's state: the server's stdin and the
// requests waiting for their answers, by the relay's id.
type floorRelay struct {
	mu      sync.Mutex // guards stdin writes, pending and next
	stdin   io.Writer
	pending map[string]chan []byte
	next    uint64
}

func (r *floorRelay) write(line []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err := r.stdin.Write(line)
	return err
}

// call sends method with params to the server and returns its answer line.
func (r *floorRelay) call(ctx context.Context, method string, params json.RawMessage) ([]byte, error) {
	ch := make(chan []byte, 1)
	r.mu.Lock()
	r.next++
	id := strconv.FormatUint(r.next, 10)
	r.pending[id] = ch
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	line := append([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":`+strconv.Quote(method)), `,"params":`...)
	line = append(append(line, params...), "}\n"...)
	_, err := r.stdin.Write(line)
	if err != nil {
		delete(r.pending, id)
	}
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case answer := <-ch:
		return answer, nil
	case <-ctx.Done():
		r.mu.Lock()
		delete(r.pending, id)
		r.mu.Unlock()
		return nil, ctx.Err()
	}
}

// readLoop hands each answer line to the request waiting for its id.
func (r *floorRelay) readLoop(rd *bufio.Reader) {
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &msg) != nil {
			continue
		}
		r.mu.Lock()
		ch := r.pending[string(msg.ID)]
		delete(r.pending, string(msg.ID))
		r.mu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
}

func (r *floorRelay) serveHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err == nil {
		err = json.Unmarshal(body, &msg)
	}
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
		return
	case msg.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "floor")
		r.answer(w, msg.ID, json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"relay-floor","version":"1"}}`), nil)
		return
	}
	line, err := r.call(req.Context(), msg.Method, msg.Params)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &answer); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	r.answer(w, msg.ID, answer.Result, answer.Error)
}

// answer writes one JSON-RPC response with the client's id, built by
// concatenation: the parts are JSON already.
func (r *floorRelay) answer(w http.ResponseWriter, id, result, rpcErr json.RawMessage) {
	out := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	if len(rpcErr) > 0 {
		out = append(append(out, `,"error":`...), rpcErr...)
	} else {
		out = append(append(out, `,"result":`...), result...)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(out, '}'))
}
