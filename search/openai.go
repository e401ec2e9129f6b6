package search

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
)

// OpenAIEmbedder is an [Embedder] backed by an OpenAI-compatible embeddings
// API (POST {BaseURL}/embeddings with {"model", "input": [...]}), as
// served by OpenAI, Ollama, llama.cpp's server and vLLM.
type OpenAIEmbedder struct {
	// BaseURL is the API's base URL, e.g. http://127.0.0.1:11434/v1.
	BaseURL string
	// Model is the embedding model's name.
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Client sends the requests (http.DefaultClient when nil).
	Client *http.Client
}

var _ Embedder = (*OpenAIEmbedder)(nil)

// maxEmbeddingResponse bounds the answer read from the endpoint.
const maxEmbeddingResponse = 64 << 20

// Embed implements Embedder.
func (o *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{o.Model, texts})
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embeddings endpoint %s: not an http(s) URL", redactURL(o.BaseURL))
	}
	u = u.JoinPath("embeddings")
	where := redactURL(u.String())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings endpoint %s: %w", where, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message quotes the URL, secrets included
		}
		return nil, fmt.Errorf("embeddings endpoint %s: %w", where, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbeddingResponse))
	if err != nil {
		return nil, fmt.Errorf("embeddings endpoint %s: read answer: %w", where, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embeddings endpoint %s: HTTP %d: %s", where, resp.StatusCode, firstLine(raw))
	}
	var ans struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return nil, fmt.Errorf("embeddings endpoint %s: answer is not an embeddings list: %w", where, err)
	}
	if len(ans.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings endpoint %s: %d embeddings for %d inputs", where, len(ans.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range ans.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("embeddings endpoint %s: bad or repeated index %d in data", where, d.Index)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// redactURL returns u without its user info and query, which may hold
// secrets.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}

// firstLine returns the first line of b, at most 200 bytes.
func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
