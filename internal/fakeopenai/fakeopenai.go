// Package fakeopenai is a scripted OpenAI-compatible chat-completions
// server on loopback for tests: each request gets the next step's reply,
// streamed as server-sent events when the request asks for a stream and
// the server is set to stream, else as one JSON body.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// Options shape the server.
type Options struct {
	// Stream answers a request asking for a stream with server-sent
	// events; false answers every request with one JSON body, as an
	// endpoint that does not stream does.
	Stream bool
	// Key, when set, is the only API key accepted; another gets 401.
	Key string
	// EchoAuthorization makes a 401 quote the Authorization header it
	// got, as some proxies do.
	EchoAuthorization bool
	// Models are the models served (GET /models, and any other model gets
	// Ollama's 404); empty serves any model.
	Models []string
	// RepeatLast answers every request past the script with the last step.
	RepeatLast bool
}

// Server is a running scripted endpoint. Safe for concurrent use.
type Server struct {
	// URL is the API root (…/v1), as --base-url takes it.
	URL  string
	opts Options
	t    testing.TB

	mu       sync.Mutex
	steps    []Step
	requests []Request
}

// Step answers one request.
type Step func(Request) Reply

// Reply is what the server answers.
type Reply struct {
	// Text is the assistant's text.
	Text string
	// ToolCalls are the tool calls the assistant asks for.
	ToolCalls []ToolCall
	// Usage is reported when set.
	Usage *Usage
	// Status, when not 0 or 200, answers with that status and Body.
	Status int
	Body   string
	// Block holds the answer until the client goes away (a model that
	// thinks forever); Started, if set, is closed once the request holds.
	Block   bool
	Started chan struct{}
}

// ToolCall is one tool call of a reply; Arguments is sent as is (it need
// not be valid JSON).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is a reply's token usage.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Request is a chat-completions request as the server got it.
type Request struct {
	Model         string
	Messages      []Message
	Tools         []string // the function names offered
	Stream        bool
	Authorization string
	Body          string
}

// Message is one message of a request.
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// Last returns the request's last message.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ToolResult returns the content of the tool message answering call id.
func (r Request) ToolResult(id string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.Content, true
		}
	}
	return "", false
}

// Start runs a server answering with steps in order; it stops when the
// test ends.
func Start(t testing.TB, opts Options, steps ...Step) *Server {
	s := &Server{opts: opts, t: t, steps: steps}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("GET /v1/models", s.models)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/v1"
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	var data []map[string]string
	for _, m := range s.opts.Models {
		data = append(data, map[string]string{"id": m, "object": "model"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s.opts.Key != "" && req.Authorization != "Bearer "+s.opts.Key {
		msg := "Incorrect API key provided."
		if s.opts.EchoAuthorization {
			msg += " Request headers: Authorization: " + req.Authorization
		}
		writeError(w, http.StatusUnauthorized, msg)
		return
	}
	if len(s.opts.Models) > 0 && !slices.Contains(s.opts.Models, req.Model) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	reply, ok := s.next(req)
	if !ok {
		s.t.Errorf("fakeopenai: request %d is past the script: last message %+v", len(s.Requests()), req.Last())
		writeError(w, http.StatusInternalServerError, "the script has no more steps")
		return
	}
	s.answer(w, r, req, reply)
}

// next records req and returns the step's reply for it.
func (s *Server) next(req Request) (Reply, bool) {
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	var step Step
	switch {
	case n < len(s.steps):
		step = s.steps[n]
	case s.opts.RepeatLast && len(s.steps) > 0:
		step = s.steps[len(s.steps)-1]
	}
	s.mu.Unlock()
	if step == nil {
		return Reply{}, false
	}
	return step(req), true
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	if reply.Block {
		if reply.Started != nil {
			close(reply.Started)
		}
		<-r.Context().Done()
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		io.WriteString(w, reply.Body)
		return
	}
	if req.Stream && s.opts.Stream {
		writeStream(w, req, reply)
		return
	}
	writeJSON(w, http.StatusOK, completion(req, reply))
}

func readRequest(r *http.Request) (Request, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return Request{}, err
	}
	var in struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
		Stream   bool      `json:"stream"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("the request is not a chat-completions request: %v", err)
	}
	req := Request{Model: in.Model, Messages: in.Messages, Stream: in.Stream,
		Authorization: r.Header.Get("Authorization"), Body: string(body)}
	for _, t := range in.Tools {
		if t.Type != "function" || t.Function.Name == "" || !json.Valid(t.Function.Parameters) {
			return Request{}, fmt.Errorf("tool %q is not a function with JSON parameters", t.Function.Name)
		}
		req.Tools = append(req.Tools, t.Function.Name)
	}
	return req, nil
}

// wireCall is a tool call as the API writes it.
type wireCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func wireCalls(calls []ToolCall) []wireCall {
	out := make([]wireCall, len(calls))
	for i, c := range calls {
		out[i].ID, out[i].Type = c.ID, "function"
		out[i].Function.Name, out[i].Function.Arguments = c.Name, c.Arguments
	}
	return out
}

func finishReason(reply Reply) string {
	if len(reply.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func completion(req Request, reply Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if len(reply.ToolCalls) > 0 {
		msg["tool_calls"] = wireCalls(reply.ToolCalls)
	}
	out := map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(reply)}},
	}
	if reply.Usage != nil {
		out["usage"] = reply.Usage
	}
	return out
}

// writeStream sends reply as chunks: the text in pieces, each tool call's
// name first and its arguments in two pieces, the finish reason, the usage
// in a chunk of its own, then [DONE].
func writeStream(w http.ResponseWriter, req Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(delta map[string]any, finish any) {
		chunk := map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, piece := range pieces(reply.Text) {
		send(map[string]any{"content": piece}, nil)
	}
	for i, c := range wireCalls(reply.ToolCalls) {
		index := i
		head := c
		head.Index, head.Function.Arguments = &index, ""
		send(map[string]any{"tool_calls": []wireCall{head}}, nil)
		for _, piece := range pieces(c.Function.Arguments) {
			var tail wireCall
			tail.Index, tail.Function.Arguments = &index, piece
			send(map[string]any{"tool_calls": []wireCall{tail}}, nil)
		}
	}
	send(map[string]any{}, finishReason(reply))
	if reply.Usage != nil {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": []any{}, "usage": reply.Usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// pieces splits s in two halves (none for "").
func pieces(s string) []string {
	if s == "" {
		return nil
	}
	if len(s) < 2 {
		return []string{s}
	}
	mid := len(s) / 2
	for mid > 0 && !isRuneStart(s[mid]) {
		mid--
	}
	return []string{s[:mid], s[mid:]}
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "api_error"}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Call is a ToolCall with JSON arguments marshalled from args.
func Call(id, name string, args any) ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err) // a test's literal
	}
	return ToolCall{ID: id, Name: name, Arguments: string(b)}
}
