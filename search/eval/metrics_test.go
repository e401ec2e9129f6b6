package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/plughost/plughost/search"
)

// fixed answers each query with a fixed list of IDs.
type fixed map[string][]string

func (f fixed) Search(q string, k int) ([]search.Hit, error) {
	var hits []search.Hit
	for i, id := range f[q] {
		if i == k {
			break
		}
		hits = append(hits, search.Hit{ID: id, Score: float64(100 - i)})
	}
	return hits, nil
}

func ranked(ids ...string) []string { return ids }

func TestEvalSingle(t *testing.T) {
	s := fixed{
		"q1": ranked(ToolID("s", "a"), ToolID("s", "b")),                                               // rank 1
		"q2": ranked("x", "y", ToolID("s", "b")),                                                       // rank 3
		"q3": ranked("1", "2", "3", "4", "5", "6", "7", ToolID("s", "c"), "9", "10", ToolID("s", "a")), // rank 8
		"q4": ranked("x"),                                                                              // miss
	}
	qs := []Query{
		{ID: "1", Level: 1, Query: "q1", Relevant: []ToolRef{{"s", "a"}}},
		{ID: "2", Level: 1, Query: "q2", Relevant: []ToolRef{{"s", "z"}, {"s", "b"}}},
		{ID: "3", Level: 2, Query: "q3", Relevant: []ToolRef{{"s", "a"}, {"s", "c"}}},
		{ID: "4", Level: 2, Query: "q4", Relevant: []ToolRef{{"s", "a"}}},
	}
	got, err := EvalSingle(s, qs)
	if err != nil {
		t.Fatal(err)
	}
	want := SingleResult{
		Scores: Scores{N: 4, R1: 0.25, R5: 0.5, R10: 0.75, MRR10: (1 + 1.0/3 + 1.0/8) / 4},
		Levels: map[string]Scores{
			"1": {N: 2, R1: 0.5, R5: 1, R10: 1, MRR10: (1 + 1.0/3) / 2},
			"2": {N: 2, R1: 0, R5: 0, R10: 0.5, MRR10: 1.0 / 16},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	js, _ := json.Marshal(got.Levels["1"])
	if string(js) != `{"n":2,"r1":0.5,"r5":1,"r10":1,"mrr10":0.6666666666666666}` {
		t.Errorf("json = %s", js)
	}
}

func TestEvalMulti(t *testing.T) {
	a, b, c := ToolID("s", "a"), ToolID("s", "b"), ToolID("s", "c")
	s := fixed{
		"m1": ranked(a, b),                                            // both steps in top 5
		"m2": ranked(a, "2", "3", "4", "5", "6", b),                   // step 2 at rank 7
		"m3": ranked(a),                                               // step 2 missing
		"m4": ranked(c, "2", "3", "4", "5", "6", "7", "8", "9", "10"), // one step of three
	}
	step := func(refs ...ToolRef) []ToolRef { return refs }
	qs := []MultiQuery{
		{ID: "1", Level: 3, Query: "m1", Steps: [][]ToolRef{step(ToolRef{"s", "a"}), step(ToolRef{"s", "b"})}},
		{ID: "2", Level: 3, Query: "m2", Steps: [][]ToolRef{step(ToolRef{"s", "a"}), step(ToolRef{"s", "b"})}},
		{ID: "3", Level: 4, Query: "m3", Steps: [][]ToolRef{step(ToolRef{"s", "a"}), step(ToolRef{"s", "b"})}},
		{ID: "4", Level: 4, Query: "m4", Steps: [][]ToolRef{step(ToolRef{"s", "z"}, ToolRef{"s", "c"}), step(ToolRef{"s", "a"}), step(ToolRef{"s", "b"})}},
	}
	got, err := EvalMulti(s, qs)
	if err != nil {
		t.Fatal(err)
	}
	want := MultiResult{
		MultiScores: MultiScores{N: 4, StepR5: (1 + 0.5 + 0.5 + 1.0/3) / 4, All10: 0.5},
		Levels: map[string]MultiScores{
			"3": {N: 2, StepR5: 0.75, All10: 1},
			"4": {N: 2, StepR5: (0.5 + 1.0/3) / 2, All10: 0},
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLoadAndBuild(t *testing.T) {
	dir := t.TempDir()
	tools := `[{"server":"Git Hub","name":"create_issue","description":"Open an issue.","input_schema":{"type":"object","properties":{"title":{"type":"string","description":"Issue title"},"body":{"type":"string"}}}},
	{"server":"Mail","name":"send_mail","description":"Send an email.","input_schema":{}}]`
	queries := `[{"id":"L1","level":1,"query":"open an issue","relevant":[["Git Hub","create_issue"]]}]`
	multi := `[{"id":"L3","level":3,"query":"x","relevant":[],"steps":[[["Mail","send_mail"]]]}]`
	for name, body := range map[string]string{"tools.json": tools, "q.json": queries, "m.json": multi} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := LoadJSON[[]Tool](filepath.Join(dir, "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]search.Param{{Name: "body"}, {Name: "title", Description: "Issue title"}}, Params(ts[0].InputSchema)); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	for path, want := range map[string]bool{"q.json": false, "m.json": true} {
		if got, err := IsMultiStep(filepath.Join(dir, path)); err != nil || got != want {
			t.Errorf("IsMultiStep(%s) = %v, %v", path, got, err)
		}
	}
	ix, err := BuildIndex(ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	qs, err := LoadJSON[[]Query](filepath.Join(dir, "q.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := EvalSingle(ix, qs)
	if err != nil {
		t.Fatal(err)
	}
	if res.R1 != 1 {
		t.Errorf("R1 = %v on a trivial query", res.R1)
	}
	base, err := EvalSingle(NewBaseline(ts), qs)
	if err != nil || base.R1 != 1 {
		t.Errorf("baseline R1 = %v, %v", base.R1, err)
	}
}
