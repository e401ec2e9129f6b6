package main

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/plughost/plughost/search"
)

// billingDocs is a catalog with a sibling pair (send_invoice and
// send_invoice_overdue_reminder) whose longer name BM25 ranks first for
// "send the invoice to a customer": its description repeats the words.
func billingDocs() map[string][]search.Doc {
	return map[string][]search.Doc{
		"billing": {
			{ID: "billing.send_invoice", Server: "billing", Name: "send_invoice", Description: "Send an invoice."},
			{ID: "billing.send_invoice_overdue_reminder", Server: "billing", Name: "send_invoice_overdue_reminder",
				Description: "Send a customer a reminder that an invoice is overdue: send the invoice again to the customer."},
			{ID: "billing.list_customers", Server: "billing", Name: "list_customers", Description: "List customers."},
		},
		"mail": {{ID: "mail.send_email", Server: "mail", Name: "send_email", Description: "Send an email to a customer."}},
	}
}

const sendInvoice = "send the invoice to a customer"

// billing indexes billingDocs and returns the index and the tools'
// feature data, with vectors from v.
func billing(t *testing.T, v vectors) (*search.Index, map[string]*toolTerms) {
	t.Helper()
	ix, err := search.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	docs := billingDocs()
	if err := ix.ReplaceServers(docs); err != nil {
		t.Fatal(err)
	}
	tools := map[string]*toolTerms{}
	var ordered []*toolTerms
	for _, server := range []string{"billing", "mail"} {
		for _, d := range docs[server] {
			tools[d.ID] = newToolTerms(d)
			ordered = append(ordered, tools[d.ID])
		}
	}
	if err := v.tools(context.Background(), ordered); err != nil {
		t.Fatal(err)
	}
	return ix, tools
}

// candidates returns the features of the BM25 top 10 of query.
func candidates(t *testing.T, v vectors, query string) []Candidate {
	t.Helper()
	ix, tools := billing(t, v)
	c, err := ix.Candidates(query, 10)
	if err != nil {
		t.Fatal(err)
	}
	qvec, err := v.query(context.Background(), query, c.Terms)
	if err != nil {
		t.Fatal(err)
	}
	return features(c, qvec, tools)
}

func testVectors(t *testing.T, words []string, vecs [][]float32) *search.WordVectors {
	t.Helper()
	var buf bytes.Buffer
	if err := search.WriteWordVectors(&buf, words, vecs); err != nil {
		t.Fatal(err)
	}
	wv, err := search.ReadWordVectors(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return wv
}

func TestFeatures(t *testing.T) {
	words := []string{"send", "invoice", "customer", "email", "overdue", "reminder", "list"}
	wv := testVectors(t, words, [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 0}, {0, 0, 1}})
	cands := candidates(t, vectors{wv: wv}, sendInvoice)
	ix, _ := billing(t, vectors{})
	hits, err := ix.Search(sendInvoice, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != len(hits) {
		t.Fatalf("%d candidates, %d hits", len(cands), len(hits))
	}
	byID := map[string]Features{}
	for i, c := range cands {
		if c.ID != hits[i].ID || c.BM25 != hits[i].Score {
			t.Errorf("candidate %d = %s %v, BM25 hit %s %v", i, c.ID, c.BM25, hits[i].ID, hits[i].Score)
		}
		if want := 1 / float64(i+1); c.Features[FeatRank] != want {
			t.Errorf("%s: rank feature %v, want %v", c.ID, c.Features[FeatRank], want)
		}
		if want := c.BM25 / cands[0].BM25; math.Abs(c.Features[FeatScore]-want) > 1e-12 {
			t.Errorf("%s: score feature %v, want %v", c.ID, c.Features[FeatScore], want)
		}
		byID[c.ID] = c.Features
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// Query terms: send, invoice, customer.
	rem := byID["billing.send_invoice_overdue_reminder"]
	near("reminder name_cover", rem[FeatNameCover], 0.5)
	near("reminder name_miss", rem[FeatNameMiss], math.Log1p(2))
	near("reminder name_hits", rem[FeatNameHits], math.Log1p(2))
	near("reminder name_len", rem[FeatNameLen], math.Log1p(4))
	near("reminder query_cover", rem[FeatQueryCover], 1)
	near("reminder idf_cover", rem[FeatIDFCover], 1)
	inv := byID["billing.send_invoice"]
	near("send_invoice name_cover", inv[FeatNameCover], 1)
	near("send_invoice name_miss", inv[FeatNameMiss], 0)
	near("send_invoice query_cover", inv[FeatQueryCover], 2.0/3)
	if inv[FeatIDFCover] <= 0 || inv[FeatIDFCover] >= 1 {
		t.Errorf("send_invoice idf_cover %v, want in (0, 1)", inv[FeatIDFCover])
	}
	near("send_invoice server", inv[FeatServer], 0)
	// The three billing tools come first: each holds 2/3 of the top-3
	// score mass minus its own share; mail's server ranks second.
	near("send_email server_rank", byID["mail.send_email"][FeatServerRank], 0.5)
	near("send_invoice server_rank", inv[FeatServerRank], 1)
	if byID["mail.send_email"][FeatServerMass] != 0 || inv[FeatServerMass] <= 0 {
		t.Errorf("server_mass: send_email %v (alone on its server: want 0), send_invoice %v (want > 0)",
			byID["mail.send_email"][FeatServerMass], inv[FeatServerMass])
	}
	// send_invoice's vector is the unit vector along (send, invoice), the
	// query's along (send, invoice, customer): the cosine is that of their
	// SIF-weighted sums.
	q := wv.TextVector([]string{"send", "invoice", "customer"})
	tool := wv.TextVector([]string{"send", "invoice"})
	near("send_invoice dense", inv[FeatDense], cosine(q, tool))
	if inv[FeatDense] <= 0 || inv[FeatDense] >= 1 {
		t.Errorf("send_invoice dense %v, want in (0, 1)", inv[FeatDense])
	}

	for _, c := range candidates(t, vectors{}, "billing send") {
		want := 0.0
		if c.ID != "mail.send_email" {
			want = 1
		}
		near(c.ID+" server", c.Features[FeatServer], want)
		if c.Features[FeatDense] != 0 {
			t.Errorf("%s: dense %v without vectors, want 0", c.ID, c.Features[FeatDense])
		}
	}
}

// embedFunc is a search.Embedder.
type embedFunc func(context.Context, []string) ([][]float32, error)

func (f embedFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}

// With an endpoint, the dense feature is the cosine of its vectors of the
// query and of the tool definition (search.EmbedText), not a word-vector
// average.
func TestDenseFeatureFromAnEndpoint(t *testing.T) {
	var embedded []string
	overdue := embedFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		embedded = append(embedded, texts...)
		out := make([][]float32, len(texts))
		for i, s := range texts {
			if strings.Contains(s, "overdue") || strings.Contains(s, "late") {
				out[i] = []float32{3, 0}
			} else {
				out[i] = []float32{0, 2}
			}
		}
		return out, nil
	})
	dense := map[string]float64{}
	for _, c := range candidates(t, vectors{e: overdue}, "send the invoice to a customer, it is late") {
		dense[c.ID] = c.Features[FeatDense]
	}
	if dense["billing.send_invoice_overdue_reminder"] != 1 || dense["billing.send_invoice"] != 0 {
		t.Errorf("dense features %v: want 1 for the overdue reminder (same endpoint vector as the query), 0 for send_invoice", dense)
	}
	want := search.EmbedText(billingDocs()["billing"][0])
	if !slices.Contains(embedded, want) {
		t.Errorf("the endpoint was given %q, want the tool definition %q among them", embedded, want)
	}
}

func TestEndpointFailures(t *testing.T) {
	for name, e := range map[string]embedFunc{
		"error":      func(context.Context, []string) ([][]float32, error) { return nil, context.DeadlineExceeded },
		"too few":    func(context.Context, []string) ([][]float32, error) { return [][]float32{{1}}, nil },
		"zero":       func(_ context.Context, t []string) ([][]float32, error) { return make([][]float32, len(t)), nil },
		"dimensions": func(_ context.Context, t []string) ([][]float32, error) { return ragged(len(t)), nil },
	} {
		err := vectors{e: e}.tools(context.Background(), []*toolTerms{newToolTerms(search.Doc{Name: "a"}), newToolTerms(search.Doc{Name: "b"})})
		if err == nil || !strings.Contains(err.Error(), "embedding tools 1–2 of 2") {
			t.Errorf("%s: err = %v, want one naming the tools being embedded", name, err)
		}
	}
}

// ragged returns n vectors of different lengths.
func ragged(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, i+1)
		out[i][0] = 1
	}
	return out
}

func TestFeatureNames(t *testing.T) {
	seen := map[string]bool{}
	for f := range NumFeatures {
		n := FeatureName(f)
		if n == "" || seen[n] {
			t.Errorf("feature %d has name %q", f, n)
		}
		seen[n] = true
	}
	if FeatureName(NumFeatures) != "" || FeatureName(-1) != "" {
		t.Error("a name for an unknown feature")
	}
}
