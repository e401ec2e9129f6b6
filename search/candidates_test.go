package search

import (
	"slices"
	"testing"
)

// billing is a catalog with a sibling pair (send_invoice and
// send_invoice_overdue_reminder) and a tool of another server.
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

// TestCandidatesAreSearchsLexicalStage: the candidates are the hits Search
// ranks (same order and scores) before any re-rank, with the exact matches
// apart, the plain terms and their idf.
func TestCandidatesAreSearchsLexicalStage(t *testing.T) {
	ix := billing(t)
	const q = `please send the "INV-7" invoice to 2 customers`
	c, err := ix.Candidates(q, 10)
	if err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, q, 10); !slices.Equal(c.Hits, hits) {
		t.Errorf("candidates %v, Search %v", c.Hits, hits)
	}
	if len(c.Exact) != 0 {
		t.Errorf("exact = %v", c.Exact)
	}
	// Quoted text, number literals and request phrasing are not plain
	// terms; plurals are folded.
	if want := []string{"send", "invoice", "customer"}; !slices.Equal(c.Terms, want) {
		t.Errorf("terms = %v, want %v", c.Terms, want)
	}
	if len(c.Idf) != 3 || !(c.Idf["invoice"] > c.Idf["send"] && c.Idf["send"] > 0) {
		t.Errorf("idf = %v: want invoice (2 of 4 tools) rarer than send (3 of 4)", c.Idf)
	}

	c, err = ix.Candidates("send_email", 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Exact, []string{"mail.send_email"}) || len(c.Hits) != 2 {
		t.Errorf("send_email: exact %v, %d hits; want the exact match apart and the BM25 top 2", c.Exact, len(c.Hits))
	}
	c, err = ix.Candidates("zebra", 5)
	if err != nil || len(c.Hits) != 0 || c.Idf["zebra"] != 0 {
		t.Errorf("a term no tool holds: %+v, %v", c, err)
	}
}

// TestCandidatesIgnoreTheDenseRerank: with the dense re-rank on, the
// candidates are still in the BM25 order.
func TestCandidatesIgnoreTheDenseRerank(t *testing.T) {
	wv := testVectors(t, []string{"send", "invoice", "customer", "email", "overdue", "reminder", "list"},
		[][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 0}, {0, 0, 1}})
	const q = "send the invoice to a customer"
	want, err := billing(t).Candidates(q, 10)
	if err != nil {
		t.Fatal(err)
	}
	dense := billing(t, WithSemantic(wv, Semantic{Dense: 100, Depth: 10}))
	if slices.Equal(ids(search(t, dense, q, 10)), ids(want.Hits)) {
		t.Fatal("the dense re-rank keeps the BM25 order here: the test no longer tests anything")
	}
	got, err := dense.Candidates(q, 10)
	if err != nil {
		t.Fatal(err)
	}
	// The order, not the scores: two indexes built alike can score a
	// hit differently for a moment (1 run in about 200 under -race).
	if !slices.Equal(ids(got.Hits), ids(want.Hits)) {
		t.Errorf("with the dense re-rank: %v, lexical %v", got.Hits, want.Hits)
	}
}

func TestCandidatesOfAClosedIndex(t *testing.T) {
	ix := billing(t)
	ix.Close()
	if _, err := ix.Candidates("send", 5); err != ErrClosed {
		t.Errorf("err = %v, want ErrClosed", err)
	}
}
