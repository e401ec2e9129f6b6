package search

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/analysis"
)

// ErrClosed is returned by every method of a closed Index.
var ErrClosed = errors.New("search: index closed")

// Index is an in-memory tool index. It is safe for concurrent use: searches
// run on a snapshot of the bluge index and take the metadata lock only to
// read a few map entries, so a ReplaceServer in progress does not block them.
type Index struct {
	weights  Weights
	sim      *Similarity
	analyzer *analysis.Analyzer
	writer   *bluge.Writer

	vectors  *WordVectors // nil: no word vectors
	embedder *embedCache  // nil: no embedding endpoint
	semantic Semantic
	vocab    vocabulary // index terms that have a word vector (for the expansion)

	writeMu sync.Mutex // serialises ReplaceServer and Close

	mu       sync.RWMutex // guards the fields below
	closed   bool
	docs     map[string]*entry   // by ID
	byServer map[string][]string // server → IDs
	exact    map[string][]string // exactKey → IDs, sorted
}

// entry is what the index keeps of a Doc besides bluge's copy: the regex scan
// and exact matching work on it.
type entry struct {
	doc    Doc
	params string    // parameter names and descriptions, one per line
	vec    []float32 // the tool's unit vector (with word vectors), or nil
}

// New returns an empty in-memory index using the corrected BM25 Similarity.
func New(opts ...Option) (*Index, error) {
	ix := &Index{
		weights:  DefaultWeights(),
		sim:      NewSimilarity(),
		analyzer: sharedAnalyzer(),
		docs:     map[string]*entry{},
		byServer: map[string][]string{},
		exact:    map[string][]string{},
	}
	for _, o := range opts {
		o(ix)
	}
	cfg := bluge.InMemoryOnlyConfig()
	cfg.DefaultSimilarity = ix.sim
	cfg.DefaultSearchAnalyzer = ix.analyzer
	w, err := bluge.OpenWriter(cfg)
	if err != nil {
		return nil, fmt.Errorf("search: open in-memory index: %w", err)
	}
	ix.writer = w
	return ix, nil
}

// ReplaceServer makes docs the complete set of server's documents: the
// server's previous documents that are not in docs are deleted and the others
// added or replaced, in one bluge batch. An empty docs removes the server.
// A doc with an empty Server gets server; a doc whose ID is empty, repeated,
// or owned by another server is an error and nothing changes.
func (ix *Index) ReplaceServer(server string, docs []Doc) error {
	return ix.ReplaceServers(map[string][]Doc{server: docs})
}

// ReplaceServers is ReplaceServer for several servers at once, in one bluge
// batch. Each bluge batch costs milliseconds whatever its size, so loading
// many servers together (at start-up) is much faster this way.
func (ix *Index) ReplaceServers(byServer map[string][]Doc) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	servers := slices.Sorted(maps.Keys(byServer))
	checked := make(map[string][]Doc, len(byServer))
	seen := map[string]bool{}
	for _, server := range servers {
		docs, err := ix.checkDocs(server, byServer[server], seen)
		if err != nil {
			return err
		}
		checked[server] = docs
	}
	old := map[string][]string{}
	var oldDocs []Doc
	ix.mu.RLock()
	for _, server := range servers {
		old[server] = ix.byServer[server]
		for _, id := range old[server] {
			oldDocs = append(oldDocs, ix.docs[id].doc)
		}
	}
	ix.mu.RUnlock()
	var all []Doc
	for _, server := range servers {
		all = append(all, checked[server]...)
	}
	entries := ix.newEntries(all, ix.Len()+len(all))

	batch := bluge.NewBatch()
	for _, server := range servers {
		for _, d := range checked[server] {
			batch.Update(bluge.Identifier(d.ID), ix.blugeDoc(d))
		}
		for _, id := range old[server] {
			if !seen[id] {
				batch.Delete(bluge.Identifier(id))
			}
		}
		if sd := ix.serverDoc(server, checked[server]); sd != nil {
			batch.Update(bluge.Identifier(serverDocID(server)), sd)
		} else {
			batch.Delete(bluge.Identifier(serverDocID(server)))
		}
	}
	if err := ix.writer.Batch(batch); err != nil {
		return fmt.Errorf("search: servers %q: index: %w", servers, err)
	}
	for _, server := range servers {
		n := len(checked[server])
		ix.swapMeta(server, old[server], entries[:n])
		entries = entries[n:]
	}
	ix.updateVocabulary(oldDocs, all)
	return nil
}

// updateVocabulary moves the expansion vocabulary from the documents
// removed to those added (nothing without word vectors).
func (ix *Index) updateVocabulary(removed, added []Doc) {
	if ix.vectors == nil || ix.semantic.Expansion <= 0 {
		return
	}
	for _, d := range removed {
		ix.vocab.update(ix.vectors, docTerms(d), -1)
	}
	for _, d := range added {
		ix.vocab.update(ix.vectors, docTerms(d), 1)
	}
}

// checkDocs validates docs for ReplaceServer and returns a copy with Server
// filled in. seen collects the IDs of the whole batch.
func (ix *Index) checkDocs(server string, docs []Doc, seen map[string]bool) ([]Doc, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, ErrClosed
	}
	out := make([]Doc, len(docs))
	for i, d := range docs {
		switch {
		case d.ID == "":
			return nil, fmt.Errorf("search: server %q: doc %d (%q) has no ID", server, i, d.Name)
		case strings.HasPrefix(d.ID, serverDocID("")):
			return nil, fmt.Errorf("search: server %q: doc ID %q uses the prefix reserved for server documents", server, d.ID)
		case seen[d.ID]:
			return nil, fmt.Errorf("search: server %q: duplicate ID %q", server, d.ID)
		case d.Server != "" && d.Server != server:
			return nil, fmt.Errorf("search: server %q: doc %q belongs to server %q", server, d.ID, d.Server)
		}
		if e, ok := ix.docs[d.ID]; ok && e.doc.Server != server {
			return nil, fmt.Errorf("search: server %q: ID %q already belongs to server %q", server, d.ID, e.doc.Server)
		}
		seen[d.ID] = true
		d.Server = server
		out[i] = d
	}
	return out, nil
}

// serverDocID is the bluge ID of server's server document. Tool IDs are
// the caller's, so the prefix is one no sane caller uses: a NUL byte.
func serverDocID(server string) string { return "\x00server\x00" + server }

// serverDoc returns the server document of server, whose tools are docs:
// their names and descriptions in the server-context field (see
// Weights.ServerContext). It is nil when the server has no tools or the
// weight is off.
func (ix *Index) serverDoc(server string, docs []Doc) *bluge.Document {
	if ix.weights.ServerContext <= 0 || len(docs) == 0 {
		return nil
	}
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(d.Name)
		b.WriteByte('\n')
		b.WriteString(d.Description)
		b.WriteByte('\n')
	}
	doc := bluge.NewDocument(serverDocID(server))
	doc.AddField(bluge.NewTextField(fieldServerCtx, b.String()).WithAnalyzer(ix.analyzer))
	return doc
}

// blugeDoc returns the bluge document of tool d.
func (ix *Index) blugeDoc(d Doc) *bluge.Document {
	names := make([]string, len(d.Params))
	descs := make([]string, len(d.Params))
	for i, p := range d.Params {
		names[i], descs[i] = p.Name, p.Description
	}
	w := ix.weights
	var text []string
	repeat := func(s string, n int) {
		for i := 0; i < n && s != ""; i++ {
			text = append(text, s)
		}
	}
	repeat(d.Name, w.Name)
	repeat(d.Server, w.Server)
	repeat(d.Description, w.Description)
	repeat(strings.Join(names, "\n"), w.ParamName)

	doc := bluge.NewDocument(d.ID)
	for _, f := range []struct{ name, text string }{
		{fieldText, strings.Join(text, "\n")},
		{fieldParamDesc, strings.Join(descs, "\n")},
		{fieldServerDesc, d.ServerDescription},
	} {
		if f.text != "" {
			doc.AddField(bluge.NewTextField(f.name, f.text).WithAnalyzer(ix.analyzer))
		}
	}
	if ix.weights.ServerContext > 0 {
		doc.AddField(bluge.NewKeywordField(fieldServer, d.Server))
	}
	return doc
}

// swapMeta replaces server's entries in the metadata maps.
func (ix *Index) swapMeta(server string, old []string, entries []*entry) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range old {
		if e, ok := ix.docs[id]; ok {
			for _, k := range exactKeys(e.doc) {
				ix.exact[k] = slices.DeleteFunc(ix.exact[k], func(x string) bool { return x == id })
				if len(ix.exact[k]) == 0 {
					delete(ix.exact, k)
				}
			}
			delete(ix.docs, id)
		}
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		d := e.doc
		ids[i] = d.ID
		ix.docs[d.ID] = e
		for _, k := range exactKeys(d) {
			ix.exact[k] = append(ix.exact[k], d.ID)
			slices.Sort(ix.exact[k])
		}
	}
	if len(ids) == 0 {
		delete(ix.byServer, server)
	} else {
		ix.byServer[server] = ids
	}
}

// newEntries returns the entries of docs with their dense vectors, if the
// index uses them; total bounds the documents the index will hold.
func (ix *Index) newEntries(docs []Doc, total int) []*entry {
	var embedded [][]float32
	if ix.embedder != nil && ix.denseOn() {
		embedded = ix.embedder.docVectors(docs, total)
	}
	out := make([]*entry, len(docs))
	for i, d := range docs {
		lines := make([]string, 0, 2*len(d.Params))
		for _, p := range d.Params {
			lines = append(lines, p.Name, p.Description)
		}
		out[i] = &entry{doc: d, params: strings.Join(lines, "\n")}
		switch {
		case embedded != nil:
			out[i].vec = embedded[i]
		case ix.vectors != nil && ix.denseOn():
			out[i].vec = ix.vectors.TextVector(docTerms(d))
		}
	}
	return out
}

// Len returns the number of documents in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.docs)
}

// Close releases the index. Later calls return ErrClosed.
func (ix *Index) Close() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	ix.mu.Lock()
	if ix.closed {
		ix.mu.Unlock()
		return nil
	}
	ix.closed = true
	ix.mu.Unlock()
	return ix.writer.Close()
}
