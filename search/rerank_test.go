package search

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

// billing is a catalog with a sibling pair (send_invoice and
// send_invoice_overdue_reminder) whose longer name BM25 ranks first for
// "send the invoice to a customer": its description repeats the words.
func billing(t *testing.T, opts ...Option) *Index {
	ix := newIndex(t, opts...)
	replace(t, ix, "billing",
		Doc{ID: "billing.send_invoice", Name: "send_invoice", Description: "Send an invoice."},
		Doc{ID: "billing.send_invoice_overdue_reminder", Name: "send_invoice_overdue_reminder",
			Description: "Send a customer a reminder that an invoice is overdue: send the invoice again to the customer."},
		Doc{ID: "billing.list_customers", Name: "list_customers", Description: "List customers."},
	)
	replace(t, ix, "mail",
		Doc{ID: "mail.send_email", Name: "send_email", Description: "Send an email to a customer."},
	)
	return ix
}

const sendInvoice = "send the invoice to a customer"

func TestRerankFollowsItsWeights(t *testing.T) {
	lexical := ids(search(t, billing(t), sendInvoice, 2))
	if lexical[0] != "billing.send_invoice_overdue_reminder" {
		t.Fatalf("BM25 order %v: the catalog no longer tests a re-order", lexical)
	}
	cover := Rerank{Depth: 10, Weights: Features{FeatNameCover: 1}}
	got := ids(search(t, billing(t, WithRerank(cover, nil)), sendInvoice, 2))
	if got[0] != "billing.send_invoice" {
		t.Errorf("name coverage weighted: %v, want send_invoice first (it covers its whole name)", got)
	}
	cover.Weights[FeatNameCover] = -1
	got = ids(search(t, billing(t, WithRerank(cover, nil)), sendInvoice, 2))
	if got[0] != "billing.send_invoice_overdue_reminder" {
		t.Errorf("name coverage weighted down: %v, want the reminder first", got)
	}
}

func TestRerankOnlyReordersTheBM25TopK(t *testing.T) {
	// Depth 2, k 2: the BM25 top 2, reversed; nothing from below them.
	r := Rerank{Depth: 2, Weights: Features{FeatRank: -1}}
	lexical := ids(search(t, billing(t), sendInvoice, 4))
	got := ids(search(t, billing(t, WithRerank(r, nil)), sendInvoice, 2))
	if want := []string{lexical[1], lexical[0]}; !slices.Equal(got, want) {
		t.Errorf("reversed top 2 = %v, want %v", got, want)
	}
	// k 4 > Depth: the top k are re-ranked (reversed) and still ordered by
	// their (positive) scores.
	hits := search(t, billing(t, WithRerank(r, nil)), sendInvoice, 4)
	if want := []string{lexical[3], lexical[2], lexical[1], lexical[0]}; !slices.Equal(ids(hits), want) {
		t.Errorf("reversed top 4 = %v, want %v", ids(hits), want)
	}
	if !slices.IsSortedFunc(hits, compareHits) || hits[len(hits)-1].Score <= 0 {
		t.Errorf("re-ranked scores %v", hits)
	}
}

func TestRerankKeepsExactNameFirst(t *testing.T) {
	// The weights push long names down; the query is one.
	r := Rerank{Depth: 10, Weights: Features{FeatNameLen: -10}}
	got := ids(search(t, billing(t, WithRerank(r, nil)), "send_invoice_overdue_reminder", 3))
	if got[0] != "billing.send_invoice_overdue_reminder" {
		t.Errorf("exact name not first: %v", got)
	}
}

func TestZeroRerankIsLexical(t *testing.T) {
	for _, q := range []string{sendInvoice, "list customers", "email"} {
		want := search(t, billing(t), q, 4)
		if got := search(t, billing(t, WithRerank(Rerank{}, nil), WithRerank(Rerank{Depth: 30}, nil)), q, 4); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

func TestCandidatesFeatures(t *testing.T) {
	wv := testVectors(t, []string{"send", "invoice", "customer", "email", "overdue", "reminder", "list"},
		[][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 0}, {0, 0, 1}})
	ix := billing(t, WithFeatures(wv))
	cands, exact, err := ix.Candidates(sendInvoice, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(exact) != 0 {
		t.Errorf("exact = %v", exact)
	}
	hits := search(t, billing(t), sendInvoice, 10)
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
	// send_invoice's vector is along (w0, w1, 0), the query's
	// (w0, w1, w2): w the SIF weights of the words' ranks 0, 1, 2.
	w0, w1, w2 := float64(wordWeight(0)), float64(wordWeight(1)), float64(wordWeight(2))
	near("send_invoice dense", inv[FeatDense], math.Sqrt(w0*w0+w1*w1)/math.Sqrt(w0*w0+w1*w1+w2*w2))

	if _, _, err := billing(t).Candidates(sendInvoice, 10); err == nil {
		t.Error("Candidates on an index without features: no error")
	}
	_, exact, _ = ix.Candidates("send_email", 10)
	if !slices.Equal(exact, []string{"mail.send_email"}) {
		t.Errorf("exact of send_email = %v", exact)
	}
	srv, _, _ := ix.Candidates("billing send", 10)
	for _, c := range srv {
		want := 0.0
		if c.ID != "mail.send_email" {
			want = 1
		}
		near(c.ID+" server", c.Features[FeatServer], want)
	}
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

// With an embedder, the dense feature is the cosine of the embedder's
// vectors of query and tool, not a word-vector average.
func TestCandidatesDenseFromEmbedder(t *testing.T) {
	overdue := embedFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, s := range texts {
			if strings.Contains(s, "overdue") || strings.Contains(s, "late") {
				out[i] = []float32{1, 0}
			} else {
				out[i] = []float32{0, 1}
			}
		}
		return out, nil
	})
	ix := billing(t, WithFeatures(nil), WithEmbedder(overdue, Semantic{Depth: 10}, EmbedderOptions{}))
	cands, _, err := ix.Candidates("send the invoice to a customer, it is late", 10)
	if err != nil {
		t.Fatal(err)
	}
	dense := map[string]float64{}
	for _, c := range cands {
		dense[c.ID] = c.Features[FeatDense]
	}
	if dense["billing.send_invoice_overdue_reminder"] != 1 || dense["billing.send_invoice"] != 0 {
		t.Errorf("dense features %v: want 1 for the overdue reminder (same embedder vector as the query), 0 for send_invoice", dense)
	}
}
