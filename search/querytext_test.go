package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitQuoted(t *testing.T) {
	tests := []struct {
		query, outside, inside string
	}{
		{`get note "abc123" now`, `get note   now`, `abc123 `},
		{`read 'report_data.csv' please`, `read   please`, `report_data.csv `},
		{`the user's repos`, `the user's repos`, ``},
		{`the users' repos`, `the users' repos`, ``},
		{`title “Meeting Minutes” here`, `title   here`, `Meeting Minutes `},
		{`‘x’ and "y"`, `  and  `, `x y `},
		{`a "never closed`, `a "never closed`, ``},
		{`it's 'don't stop' ok`, `it's   ok`, `don't stop `},
		{``, ``, ``},
	}
	for _, tt := range tests {
		out, in := splitQuoted(tt.query)
		if out != tt.outside || in != tt.inside {
			t.Errorf("splitQuoted(%q) = %q, %q; want %q, %q", tt.query, out, in, tt.outside, tt.inside)
		}
	}
}

func TestIsNumberLiteral(t *testing.T) {
	for term, want := range map[string]bool{
		"20": true, "5th": true, "1st": true, "2nd": true, "3rd": true,
		"s3": false, "ipv4": false, "3d": false, "10x": false, "": false, "th": false,
	} {
		if got := isNumberLiteral(term); got != want {
			t.Errorf("isNumberLiteral(%q) = %v, want %v", term, got, want)
		}
	}
}

// termWeights maps each term of ix.queryTerms(splitQuery(q)) in the composite field to
// its boost.
func termWeights(ix *Index, q string) map[string]float64 {
	out := map[string]float64{}
	for _, wt := range ix.queryTerms(splitQuery(q)) {
		if wt.field == fieldText {
			out[wt.term] = wt.boost
		}
	}
	return out
}

func TestQueryTerms(t *testing.T) {
	ix := newIndex(t)
	tests := []struct {
		query string
		want  map[string]float64
	}{
		// Request phrasing and number literals are dropped.
		{"Can you please give me the 20 latest emails", map[string]float64{"latest": 1, "email": 1}},
		// Quoted literals count with Weights.Quoted unless also outside.
		{`open note "abc123" note`, map[string]float64{"open": 1, "note": 1, "abc123": 0.3}},
		// Action verbs search their synonyms with Weights.Synonym.
		{"delete branch", map[string]float64{"delete": 1, "branch": 1, "remove": 0.4, "erase": 0.4, "destroy": 0.4, "drop": 0.4}},
		// A synonym already in the query keeps its full weight.
		{"list enumerate", map[string]float64{"list": 1, "enumerate": 1}},
		// A query of nothing but dropped words keeps them.
		{"10", map[string]float64{"10": 1}},
		{"please", map[string]float64{"please": 1}},
		{`"2024"`, map[string]float64{"2024": 0.3}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, termWeights(ix, tt.query)); diff != "" {
			t.Errorf("queryTerms(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
	off := newIndex(t, WithWeights(Weights{Name: 1, Description: 1}))
	if diff := cmp.Diff(map[string]float64{"delete": 1}, termWeights(off, `delete "branch"`)); diff != "" {
		t.Errorf("with Quoted and Synonym 0 (-want +got):\n%s", diff)
	}
}

// TestQueryAnalysisRanking shows the quote and synonym rules deciding a
// ranking (without them the CSV tool comes first).
func TestQueryAnalysisRanking(t *testing.T) {
	ix := newIndex(t)
	replace(t, ix, "files",
		Doc{ID: "files_read", Name: "read_file", Description: "Retrieve the contents of a file."},
		Doc{ID: "files_csv", Name: "csv_stats", Description: "Statistics of a CSV report."},
	)
	replace(t, ix, "logs",
		Doc{ID: "logs_recent", Name: "recent_errors", Description: "The 20 most recent errors."},
		Doc{ID: "logs_tail", Name: "tail", Description: "Follow a log."},
	)
	for query, first := range map[string]string{
		// "fetch" finds "retrieve"; the quoted file name does not pull
		// towards the CSV tool.
		`Fetch the contents of 'report.csv'`: "files_read",
	} {
		if hits := search(t, ix, query, 4); len(hits) == 0 || hits[0].ID != first {
			t.Errorf("search(%q) = %v, want %s first", query, hits, first)
		}
	}
}

// TestServerContext: a tool whose own text does not say it is found
// through its server's other tools.
func TestServerContext(t *testing.T) {
	docs := func() (a, b []Doc) {
		a = []Doc{
			{ID: "vault_get", Name: "get_note", Description: "Get a note."},
			{ID: "vault_list", Name: "list_files", Description: "List the markdown files of the vault by path."},
		}
		b = []Doc{
			{ID: "pad_get", Name: "get_note", Description: "Get a note."},
			{ID: "pad_team", Name: "team_notes", Description: "Notes shared with a team."},
		}
		return a, b
	}
	for _, tt := range []struct {
		weight float64
		first  string
	}{{0.2, "vault_get"}, {0, "pad_get"}} {
		w := DefaultWeights()
		w.ServerContext = tt.weight
		ix := newIndex(t, WithWeights(w))
		a, b := docs()
		replace(t, ix, "vault", a...)
		replace(t, ix, "pad", b...)
		hits := search(t, ix, "get the note at path /x/y.md", 4)
		var notes []string
		for _, h := range hits {
			if h.ID == "vault_get" || h.ID == "pad_get" {
				notes = append(notes, h.ID)
			}
		}
		if len(notes) == 0 || notes[0] != tt.first {
			t.Errorf("ServerContext %v: hits %v, want %s ranked above the other get_note", tt.weight, hits, tt.first)
		}
	}
}

// TestServerContextFollowsReplace: the server document changes with the
// server's tools, and goes with them.
func TestServerContextFollowsReplace(t *testing.T) {
	ix := newIndex(t)
	get := func(id string) Doc { return Doc{ID: id, Name: "get", Description: "Get an item."} }
	replace(t, ix, "alpha", get("alpha_get"), Doc{ID: "alpha_zebra", Name: "zebra", Description: "Zebra stripes."})
	replace(t, ix, "bravo", get("bravo_get"))
	getTools := func() []Hit {
		var out []Hit
		for _, h := range search(t, ix, "get item zebra", 3) {
			if h.ID != "alpha_zebra" {
				out = append(out, h)
			}
		}
		return out
	}
	if hits := getTools(); len(hits) != 2 || hits[0].ID != "alpha_get" || hits[0].Score <= hits[1].Score {
		t.Fatalf("with a zebra sibling, alpha_get must score above bravo_get: %v", hits)
	}
	replace(t, ix, "alpha", get("alpha_get"))
	if hits := getTools(); len(hits) != 2 || hits[0].Score != hits[1].Score {
		t.Errorf("after removing the zebra tool, the two get tools must tie: %v", hits)
	}
	replace(t, ix, "alpha")
	replace(t, ix, "bravo")
	if hits := search(t, ix, "get item zebra", 3); len(hits) != 0 {
		t.Errorf("empty index returns %v", hits)
	}
}
