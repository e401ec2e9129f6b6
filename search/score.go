package search

import (
	"cmp"
	"container/heap"
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/blugelabs/bluge"
	blugesearch "github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"
)

// weightedTerm is one (term, field) lookup of a query with its boost.
type weightedTerm struct {
	term  string
	field string
	boost float64
}

// scoreRequest scores the documents of a query term at a time.
//
// bluge's own disjunction walks every query term's postings in lock step,
// document at a time, through a heap of term searchers, and builds a
// DocumentMatch for every posting. Tool-search queries are long (a task
// described in 20–30 words, so 20–60 lookups), which makes that heap the
// whole cost of a query. scoreRequest instead reads each term's postings
// once and adds its BM25 contributions into a dense array indexed by
// document number (an accumulator, the classic term-at-a-time evaluation).
// The scores are the sums bluge's BooleanQuery of TermQueries computes with
// [Similarity].
//
// The lists are read rarest term first. With prune set, once the n-th best
// accumulated score exceeds what the remaining terms could add together, no
// document not yet seen can enter the top n, and the remaining (common,
// long) lists are only applied to the documents that can still reach it
// (see probe): the top n are exactly those of reading every list, at a
// fraction of the cost on a large catalog.
//
// The caller reads the snapshot (snapshotOf), calls score, and picks the
// top documents from the accumulator.
type scoreRequest struct {
	terms []weightedTerm
	// serverTerms are the lookups in the server documents: the best
	// topServers servers' scores are added to each of their tools first.
	serverTerms []weightedTerm
	topServers  int
	n           int  // how many top documents the caller wants
	prune       bool // skip work that cannot change the top n (see accumulate)
	sim         *Similarity
	acc         *accumulator
}

// score accumulates the scores of every document matching the request in
// reader into r.acc.
func (r *scoreRequest) score(reader blugesearch.Reader) error {
	best, err := r.seedServers(reader)
	if err != nil {
		return err
	}
	lists, err := r.open(reader, r.terms)
	defer func() {
		for _, l := range lists {
			_ = l.pi.Close()
		}
	}()
	if err != nil {
		return err
	}
	return r.accumulate(r.acc, lists, r.n, best)
}

// snapshotRequest obtains a bluge.Reader's snapshot reader, the only way to
// read postings directly: bluge hands it to a SearchRequest's Searcher
// method and to nothing else. Its Searcher keeps the reader and returns an
// empty searcher, so bluge's collector has nothing to do; scoring happens
// afterwards, in scoreRequest.score, called by name.
type snapshotRequest struct {
	reader blugesearch.Reader
}

// snapshotOf returns reader's snapshot reader, valid as long as reader.
func snapshotOf(reader *bluge.Reader) (blugesearch.Reader, error) {
	req := &snapshotRequest{}
	if _, err := reader.Search(context.Background(), req); err != nil {
		return nil, err
	}
	return req.reader, nil
}

func (r *snapshotRequest) Collector() blugesearch.Collector { return emptyCollector{} }

func (r *snapshotRequest) AddAggregation(string, blugesearch.Aggregation) {}

func (r *snapshotRequest) Aggregations() blugesearch.Aggregations { return nil }

// Searcher is bluge's hook: it records the snapshot reader, nothing more.
func (r *snapshotRequest) Searcher(reader blugesearch.Reader, _ bluge.Config) (blugesearch.Searcher, error) {
	r.reader = reader
	return emptySearcher{}, nil
}

// accumulate adds lists (highest weight first) to acc, which should end
// with the right top n; best is the highest score in acc already.
//
// Documents already in acc carry their score; every other document starts
// from 0. rest[i] bounds what lists i.. can still add to a document: a
// term's contribution is below its weight w (the BM25 tf part is below 1).
// The bound is widened by a relative 1e-9 against rounding.
func (r *scoreRequest) accumulate(acc *accumulator, lists []postingList, n int, best float64) error {
	rest := make([]float64, len(lists)+1)
	for i := len(lists) - 1; i >= 0; i-- {
		rest[i] = (rest[i+1] + lists[i].w) * (1 + 1e-9)
	}
	for i, l := range lists {
		// Once no document outside the accumulators can reach the n-th
		// score, the remaining (commoner, longer) lists only need to be
		// probed for the documents that still can.
		if r.prune && best > rest[i] && len(acc.touched) >= n {
			if cut := acc.nth(n); cut > rest[i] {
				return probe(acc, lists[i:], rest[i:], cut, n)
			}
		}
		for {
			p, err := l.pi.Next()
			if err != nil {
				return err
			}
			if p == nil {
				break
			}
			best = max(best, acc.add(p.Number(), l.score(p)))
		}
	}
	return nil
}

// postingList is one query term's postings in one field.
type postingList struct {
	pi segment.PostingsIterator
	fn *fieldNorms
	w  float64 // boost × idf: the term's highest possible contribution
}

// score is the BM25 contribution of posting p: the arithmetic of bluge's
// BM25Scorer (which [Similarity.Scorer] builds), with the length
// normalisation looked up per field length instead of recomputed.
func (l *postingList) score(p segment.Posting) float64 {
	inv := l.fn.inverse(math.Float32bits(float32(p.Norm())))
	return l.w - l.w/(1+float64(p.Frequency())*inv)
}

// seedServers scores the server documents against serverTerms and adds
// the best topServers servers' scores to each of their tools (found by the
// server keyword field). It returns the highest score added.
func (r *scoreRequest) seedServers(reader blugesearch.Reader) (float64, error) {
	if len(r.serverTerms) == 0 || r.topServers <= 0 {
		return 0, nil
	}
	lists, err := r.open(reader, r.serverTerms)
	defer func() {
		for _, l := range lists {
			_ = l.pi.Close()
		}
	}()
	if err != nil {
		return 0, err
	}
	servers := accPool.Get().(*accumulator)
	defer func() {
		servers.reset()
		accPool.Put(servers)
	}()
	if err := r.accumulate(servers, lists, r.topServers, 0); err != nil {
		return 0, err
	}
	top, err := servers.top(reader, r.topServers)
	if err != nil {
		return 0, err
	}
	var best float64
	for _, h := range top {
		pi, err := reader.PostingsIterator([]byte(strings.TrimPrefix(h.ID, serverDocID(""))), fieldServer, false, false, false)
		if err != nil {
			return 0, err
		}
		for {
			p, err := pi.Next()
			if err != nil || p == nil {
				_ = pi.Close()
				if err != nil {
					return 0, err
				}
				break
			}
			best = max(best, r.acc.add(p.Number(), h.Score))
		}
	}
	return best, nil
}

// open returns the postings lists of terms, highest weight first (the
// rare terms, whose lists are short). Terms found nowhere are left out.
func (r *scoreRequest) open(reader blugesearch.Reader, terms []weightedTerm) ([]postingList, error) {
	fields := map[string]*fieldNorms{}
	lists := make([]postingList, 0, len(terms))
	for _, t := range terms {
		fn, ok := fields[t.field]
		if !ok {
			cs, err := reader.CollectionStats(t.field)
			if err != nil {
				return lists, err
			}
			fn = r.sim.norms(cs)
			fields[t.field] = fn
		}
		pi, err := reader.PostingsIterator([]byte(t.term), t.field, true, true, false)
		if err != nil {
			return lists, err
		}
		if pi.Count() == 0 {
			_ = pi.Close()
			continue
		}
		lists = append(lists, postingList{pi: pi, fn: fn, w: t.boost * Idf(pi.Count(), fn.docCount)})
	}
	slices.SortStableFunc(lists, func(a, b postingList) int { return cmp.Compare(b.w, a.w) })
	return lists, nil
}

// probe adds lists to the documents that can still reach cut, a lower
// bound of the n-th score: those whose score plus rest, the most the lists
// can add, is at least cut. Any other document, accumulated or not, ends
// below cut, so the top n (ties included) are exactly those of the full
// evaluation, whatever else is added to the others. A list no longer than
// the candidates is read whole; a longer one is probed (Advance) for the
// candidates only. The candidates and cut are refined after each list.
func probe(acc *accumulator, lists []postingList, rest []float64, cut float64, n int) error {
	cands := slices.Clone(acc.touched)
	for i, l := range lists {
		cands = slices.DeleteFunc(cands, func(d uint64) bool { return acc.scores[d]+rest[i] < cut })
		cut = max(cut, acc.nthOf(cands, n))
		if l.pi.Count() <= uint64(len(cands)) {
			if err := readAll(acc, l); err != nil {
				return err
			}
			continue
		}
		if i == 0 || !slices.IsSorted(cands) {
			slices.Sort(cands)
		}
		var cur segment.Posting
		for _, d := range cands {
			if cur != nil && cur.Number() > d {
				continue
			}
			if cur == nil || cur.Number() < d {
				var err error
				if cur, err = l.pi.Advance(d); err != nil {
					return err
				}
				if cur == nil {
					break
				}
			}
			if cur.Number() == d {
				acc.add(d, l.score(cur))
			}
		}
	}
	return nil
}

// readAll adds every posting of l to acc.
func readAll(acc *accumulator, l postingList) error {
	for {
		p, err := l.pi.Next()
		if err != nil || p == nil {
			return err
		}
		acc.add(p.Number(), l.score(p))
	}
}

// fieldNorms caches, for one field of one snapshot, BM25's inverse length
// normalisation 1/(k1·(1 - b + b·dl/avgdl)) by field length dl.
type fieldNorms struct {
	k1, b, avg float64
	docCount   uint64
	table      [256]float64 // by dl, 0 = not computed yet
}

func (s *Similarity) norms(cs segment.CollectionStats) *fieldNorms {
	fn := &fieldNorms{k1: s.K1, b: s.B, avg: 1}
	if cs != nil {
		fn.docCount = cs.DocumentCount()
		if fn.docCount > 0 {
			fn.avg = float64(cs.SumTotalTermFrequency()) / float64(fn.docCount)
		}
	}
	return fn
}

func (fn *fieldNorms) inverse(dl uint32) float64 {
	if int(dl) < len(fn.table) {
		if v := fn.table[dl]; v != 0 {
			return v
		}
	}
	v := 1 / (fn.k1 * ((1 - fn.b) + fn.b*float64(dl)/fn.avg))
	if int(dl) < len(fn.table) {
		fn.table[dl] = v
	}
	return v
}

// accumulator holds per-document score sums. Every BM25 contribution is
// positive (the idf is), so a zero score means "not matched".
type accumulator struct {
	scores  []float64
	touched []uint64 // document numbers with a non-zero score
}

var accPool = sync.Pool{New: func() any { return &accumulator{} }}

// add adds s to doc's score and returns the new score.
func (a *accumulator) add(doc uint64, s float64) float64 {
	if doc >= uint64(len(a.scores)) {
		a.scores = append(a.scores, make([]float64, int(doc)+1-len(a.scores)+len(a.scores)/2)...)
	}
	if a.scores[doc] == 0 {
		a.touched = append(a.touched, doc)
	}
	a.scores[doc] += s
	return a.scores[doc]
}

// nth returns the n-th best score, or 0 when fewer than n documents scored.
func (a *accumulator) nth(n int) float64 { return a.nthOf(a.touched, n) }

// nthOf returns the n-th best score of docs, or 0 when there are fewer.
func (a *accumulator) nthOf(docs []uint64, n int) float64 {
	if n <= 0 || len(docs) < n {
		return 0
	}
	h := minHeap(make([]float64, 0, n))
	for _, d := range docs {
		s := a.scores[d]
		if len(h) < n {
			heap.Push(&h, s)
		} else if s > h[0] {
			h[0] = s
			heap.Fix(&h, 0)
		}
	}
	return h[0]
}

func (a *accumulator) reset() {
	for _, d := range a.touched {
		a.scores[d] = 0
	}
	a.touched = a.touched[:0]
}

// top returns the n best documents ordered by score, then ID. Every
// document tied with the n-th score is a candidate, so the cut keeps the
// lowest IDs whatever the document numbers are.
func (a *accumulator) top(reader blugesearch.Reader, n int) ([]Hit, error) {
	if n <= 0 || len(a.touched) == 0 {
		return nil, nil
	}
	cut := a.nth(n) // 0 when fewer than n matched
	var hits []Hit
	for _, d := range a.touched {
		if s := a.scores[d]; s >= cut {
			id, err := docID(reader, d)
			if err != nil {
				return nil, err
			}
			hits = append(hits, Hit{ID: id, Score: s})
		}
	}
	slices.SortFunc(hits, compareHits)
	return hits[:min(n, len(hits))], nil
}

func docID(reader blugesearch.Reader, doc uint64) (string, error) {
	var id string
	err := reader.VisitStoredFields(doc, func(field string, value []byte) bool {
		if field == "_id" {
			id = string(value)
			return false
		}
		return true
	})
	return id, err
}

// compareHits orders by score, higher first, then by ID.
func compareHits(a, b Hit) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

type minHeap []float64

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// emptySearcher and emptyCollector complete snapshotRequest, which searches
// nothing.
type emptySearcher struct{}

func (emptySearcher) Next(*blugesearch.Context) (*blugesearch.DocumentMatch, error) { return nil, nil }
func (emptySearcher) Advance(*blugesearch.Context, uint64) (*blugesearch.DocumentMatch, error) {
	return nil, nil
}
func (emptySearcher) Close() error               { return nil }
func (emptySearcher) Count() uint64              { return 0 }
func (emptySearcher) Min() int                   { return 0 }
func (emptySearcher) Size() int                  { return 0 }
func (emptySearcher) DocumentMatchPoolSize() int { return 0 }

type emptyCollector struct{}

func (emptyCollector) Collect(context.Context, blugesearch.Aggregations, blugesearch.Collectible) (blugesearch.DocumentMatchIterator, error) {
	return emptyIterator{}, nil
}
func (emptyCollector) Size() int        { return 0 }
func (emptyCollector) BackingSize() int { return 0 }

type emptyIterator struct{}

func (emptyIterator) Next() (*blugesearch.DocumentMatch, error) { return nil, nil }
func (emptyIterator) Aggregations() *blugesearch.Bucket         { return nil }
