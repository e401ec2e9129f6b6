package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/plughost/plughost/lib/secret"
)

// Client talks to one OpenAI-compatible chat-completions endpoint. Safe
// for concurrent use once built.
type Client struct {
	// BaseURL is the API root, e.g. http://127.0.0.1:11434/v1.
	BaseURL string
	// Model is the model's name at the endpoint.
	Model string
	// Key is sent as a bearer token when set; it never appears in an
	// error (Masker) or a print (secret.String).
	Key secret.String
	// KeyEnv names the variable Key came from, for messages.
	KeyEnv string
	// Stream asks for a streamed answer; an endpoint that does not stream
	// answers whole, which is read as well.
	Stream bool
	// HTTP is the client used (nil: a default one).
	HTTP *http.Client
	// Masker masks Key and every secret it knows in errors (nil: URLs
	// only).
	Masker *secret.Masker
}

var _ Model = (*Client)(nil)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// Complete sends req and returns the model's answer. With Stream on,
// onDelta (if not nil) receives the answer's text as it arrives. The
// error is an *EndpointError for an endpoint that could not be reached,
// refused the request or answered something unreadable, and wraps the
// context's error when ctx ended first.
func (c *Client) Complete(ctx context.Context, req Request, onDelta func(string)) (Completion, error) {
	out, err := c.complete(ctx, req, onDelta)
	return out, c.Masker.Error(err)
}

func (c *Client) complete(ctx context.Context, req Request, onDelta func(string)) (Completion, error) {
	body, err := c.encode(req)
	if err != nil {
		return Completion{}, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url("/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return Completion{}, &EndpointError{Kind: Unreachable, URL: c.BaseURL, Err: err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	c.authorize(hreq)
	resp, err := c.http().Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Completion{}, fmt.Errorf("model request: %w", context.Cause(ctx))
		}
		return Completion{}, &EndpointError{Kind: Unreachable, URL: c.BaseURL, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Completion{}, c.statusError(ctx, resp)
	}
	out, err := c.decode(resp, onDelta)
	if err != nil && ctx.Err() != nil {
		return Completion{}, fmt.Errorf("model request: %w", context.Cause(ctx))
	}
	return out, err
}

// encode writes the request body.
func (c *Client) encode(req Request) ([]byte, error) {
	body := map[string]any{"model": c.Model, "messages": req.Messages, "stream": c.Stream}
	if len(req.Tools) > 0 {
		body["tools"] = req.Tools
	}
	if c.Stream {
		body["stream_options"] = map[string]bool{"include_usage": true}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the model request: %w", err)
	}
	return b, nil
}

// decode reads a 200 answer: an event stream or one JSON completion.
func (c *Client) decode(resp *http.Response, onDelta func(string)) (Completion, error) {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		out, err := readStream(resp.Body, onDelta)
		if err != nil {
			return Completion{}, &EndpointError{Kind: BadResponse, URL: c.BaseURL, Err: err}
		}
		return out, nil
	}
	var in struct {
		Choices []struct {
			Message      Message `json:"message"`
			FinishReason string  `json:"finish_reason"`
		} `json:"choices"`
		Usage *Usage `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&in); err != nil {
		return Completion{}, &EndpointError{Kind: BadResponse, URL: c.BaseURL, Err: fmt.Errorf("not a chat completion: %w", err)}
	}
	if len(in.Choices) == 0 {
		return Completion{}, &EndpointError{Kind: BadResponse, URL: c.BaseURL, Err: errors.New("the completion has no choices")}
	}
	ch := in.Choices[0]
	if ch.Message.Content != "" && onDelta != nil {
		onDelta(ch.Message.Content)
	}
	return Completion{Message: ch.Message, Usage: in.Usage, FinishReason: ch.FinishReason}, nil
}

func (c *Client) url(path string) string { return strings.TrimRight(c.BaseURL, "/") + path }

func (c *Client) authorize(r *http.Request) {
	if c.Key != "" {
		r.Header.Set("Authorization", "Bearer "+c.Key.Reveal())
	}
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// statusError explains a non-200 answer.
func (c *Client) statusError(ctx context.Context, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &EndpointError{URL: c.BaseURL, Model: c.Model, Status: resp.StatusCode, KeyEnv: c.KeyEnv, KeySent: c.Key != ""}
	var code string
	e.Message, code = errorMessage(b)
	e.Kind = classify(resp.StatusCode, code, e.Message)
	if e.Kind == ModelNotFound {
		e.Models = c.models(ctx)
	}
	return e
}

// models lists the endpoint's models (GET /models), best effort.
func (c *Client) models(ctx context.Context) []string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url("/models"), nil)
	if err != nil {
		return nil
	}
	c.authorize(req)
	resp, err := c.http().Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var in struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&in) != nil {
		return nil
	}
	var out []string
	for _, m := range in.Data {
		out = append(out, m.ID)
	}
	return out
}
