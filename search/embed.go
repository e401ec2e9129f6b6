package search

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Embedder turns texts into vectors with an embedding model, one vector
// per text, in order (see [OpenAIEmbedder]).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderOptions configure [WithEmbedder].
type EmbedderOptions struct {
	// Timeout bounds each call to the embedder: a query waits at most this
	// long before it is ranked without vectors (default 2 s).
	Timeout time.Duration
	// Batch is the most texts one call embeds (default 64).
	Batch int
	// OnError, when set, is told of every failed call; the tools or the
	// query concerned are ranked without vectors.
	OnError func(error)
}

// WithEmbedder takes the dense vectors of tools and queries from e (an
// embedding endpoint) instead of the word vectors; s says how they count
// (its Dense and Depth; a zero Dense means 0.5, a zero Depth 50). Tool
// vectors are cached by a hash of the text embedded, so re-indexing a
// server whose tools did not change costs no call.
func WithEmbedder(e Embedder, s Semantic, o EmbedderOptions) Option {
	return func(ix *Index) {
		if e == nil {
			return
		}
		if o.Timeout <= 0 {
			o.Timeout = 2 * time.Second
		}
		if o.Batch <= 0 {
			o.Batch = 64
		}
		if s.Dense <= 0 {
			s.Dense = 0.5
		}
		if s.Depth <= 0 {
			s.Depth = 50
		}
		if ix.vectors == nil {
			s.Expansion = 0
		} else {
			s.Expansion, s.Neighbors, s.MinSimilarity, s.ExpandAll =
				ix.semantic.Expansion, ix.semantic.Neighbors, ix.semantic.MinSimilarity, ix.semantic.ExpandAll
		}
		ix.embedder = &embedCache{e: e, opts: o, vecs: map[[32]byte][]float32{}}
		ix.semantic = s
	}
}

// embedCache embeds texts through an Embedder, remembering tool vectors by
// the hash of their text.
type embedCache struct {
	e    Embedder
	opts EmbedderOptions

	mu   sync.Mutex
	vecs map[[32]byte][]float32
}

// EmbedText is the text of d that [WithEmbedder] gives the embedder: what
// the tool definition says about what it does — "server: name", the
// description, and a "name: description" line per parameter.
func EmbedText(d Doc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n%s", d.Server, d.Name, d.Description)
	for _, p := range d.Params {
		fmt.Fprintf(&b, "\n%s: %s", p.Name, p.Description)
	}
	return b.String()
}

// docVectors returns the unit vectors of docs (nil for those the embedder
// could not embed), embedding only texts not seen before. keep is the
// number of documents the index will hold: the cache is trimmed to the
// texts of docs when it grows past twice that.
func (c *embedCache) docVectors(docs []Doc, keep int) [][]float32 {
	out := make([][]float32, len(docs))
	keys := make([][32]byte, len(docs))
	var todo []int
	c.mu.Lock()
	for i, d := range docs {
		keys[i] = sha256.Sum256([]byte(EmbedText(d)))
		if v, ok := c.vecs[keys[i]]; ok {
			out[i] = v
		} else {
			todo = append(todo, i)
		}
	}
	c.mu.Unlock()
	for start := 0; start < len(todo); start += c.opts.Batch {
		batch := todo[start:min(start+c.opts.Batch, len(todo))]
		texts := make([]string, len(batch))
		for j, i := range batch {
			texts[j] = EmbedText(docs[i])
		}
		vecs, err := c.embed(texts)
		if err != nil {
			c.report(fmt.Errorf("embedding %d tool definitions: %w", len(texts), err))
			continue
		}
		c.mu.Lock()
		for j, i := range batch {
			out[i] = vecs[j]
			c.vecs[keys[i]] = vecs[j]
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	if len(c.vecs) > 2*max(keep, 64) {
		live := make(map[[32]byte]bool, len(keys))
		for _, k := range keys {
			live[k] = true
		}
		for k := range c.vecs {
			if !live[k] {
				delete(c.vecs, k)
			}
		}
	}
	c.mu.Unlock()
	return out
}

// queryVector returns the unit vector of query, or nil when the call fails.
func (c *embedCache) queryVector(query string) []float32 {
	vecs, err := c.embed([]string{query})
	if err != nil {
		c.report(fmt.Errorf("embedding the query: %w", err))
		return nil
	}
	return vecs[0]
}

// embed calls the embedder with the timeout and checks its answer: one
// non-zero vector per text, all of one dimension; they are normalised.
func (c *embedCache) embed(texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
	defer cancel()
	vecs, err := c.e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			return nil, fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(v), len(vecs[0]))
		}
		if normalize(v) == nil {
			return nil, fmt.Errorf("vector %d is zero", i)
		}
	}
	return vecs, nil
}

func (c *embedCache) report(err error) {
	if c.opts.OnError != nil {
		c.opts.OnError(err)
	}
}

// queryVector returns the dense vector of a query (plain: its terms), or
// nil when there is none.
func (ix *Index) queryVector(query string, plain []string) []float32 {
	if ix.embedder != nil {
		return ix.embedder.queryVector(query)
	}
	return ix.vectors.TextVector(plain)
}
