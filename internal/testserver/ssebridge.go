package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// sseBridge serves an MCP server over the legacy HTTP+SSE transport (GET
// /sse, POST /message) through mcp-go's stdio server: unlike mcp-go's SSE
// server, the stdio server sends requests to its client (sampling,
// elicitation, roots), so this is a legacy SSE server that asks its client
// things (-serve sse-bridge). Every line the stdio server writes becomes a
// "message" event; every POSTed message becomes a line it reads. mcp-go's
// stdio server has one session per process, so one stream is served at a
// time: a GET while another stream is open is refused with 409.
type sseBridge struct {
	s *server.MCPServer

	mu     sync.Mutex
	n      int
	active *bridgeSession
}

// bridgeSession is the open stream: its id (in the endpoint's query) and
// the stdio server's input.
type bridgeSession struct {
	id string
	mu sync.Mutex // one message at a time into in
	in *io.PipeWriter
}

func (b *sseBridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		b.stream(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/message":
		b.post(w, r)
	default:
		http.NotFound(w, r)
	}
}

// stream runs a stdio server for the request's life and writes what it
// says as events.
func (b *sseBridge) stream(w http.ResponseWriter, r *http.Request) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sess, ok := b.open(inW)
	if !ok {
		http.Error(w, "one stream at a time", http.StatusConflict)
		return
	}
	defer b.close(sess)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = server.NewStdioServer(b.s).Listen(r.Context(), inR, outW)
		outW.Close()
	}()
	defer func() { outR.Close(); inW.Close(); <-done }()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "event: endpoint\ndata: /message?sessionId=%s\n\n", sess.id)
	w.(http.Flusher).Flush()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 64<<10), 256<<20)
	for lines.Scan() {
		if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", lines.Bytes()); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

func (b *sseBridge) open(in *io.PipeWriter) (*bridgeSession, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active != nil {
		return nil, false
	}
	b.n++
	b.active = &bridgeSession{id: strconv.Itoa(b.n), in: in}
	return b.active, true
}

func (b *sseBridge) close(sess *bridgeSession) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active == sess {
		b.active = nil
	}
}

// post hands one message to the open stream's stdio server.
func (b *sseBridge) post(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	sess := b.active
	b.mu.Unlock()
	if sess == nil || r.URL.Query().Get("sessionId") != sess.id {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	line := append(bytes.TrimSpace(body), '\n')
	sess.mu.Lock()
	_, err = sess.in.Write(line)
	sess.mu.Unlock()
	if err != nil {
		http.Error(w, "the stream ended", http.StatusGone)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}
