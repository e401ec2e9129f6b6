package toolscan

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// corpusEntry is one definition of testdata/poisoned.json or benign.json:
// an MCP tool definition with where it comes from and what it should
// trigger (nothing, for benign ones).
type corpusEntry struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Technique string   `json:"technique"`
	Expect    []string `json:"expect"`
	raw       json.RawMessage
}

func readCorpus(t *testing.T, file string) []corpusEntry {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := ReadDefinitions(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	entries := make([]corpusEntry, len(defs))
	for i, d := range defs {
		if err := json.Unmarshal(d, &entries[i]); err != nil {
			t.Fatalf("%s[%d]: %v", file, i, err)
		}
		entries[i].raw = d
		if entries[i].ID == "" || entries[i].Source == "" {
			t.Errorf("%s[%d]: every entry needs an id and a source", file, i)
		}
	}
	return entries
}

func rulesOf(fs []Finding) []string {
	var rules []string
	for _, f := range fs {
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	return rules
}

// The poisoned corpus (poisoned.json, and heldout.json: the definitions
// written after the rules, see docs/security.md): at least 95 % flagged,
// and each entry's expected rules among its findings.
func TestScanCorpusCatchRate(t *testing.T) {
	for _, file := range []string{"testdata/poisoned.json", "testdata/heldout.json"} {
		t.Run(file, func(t *testing.T) { testCatchRate(t, file) })
	}
}

func testCatchRate(t *testing.T, file string) {
	entries := readCorpus(t, file)
	if len(entries) < 30 {
		t.Errorf("%s has %d definitions, want at least 30", file, len(entries))
	}
	caught, exact := 0, 0
	covered := map[string]int{}
	for _, e := range entries {
		fs := Scan(e.raw)
		got := rulesOf(fs)
		if len(fs) > 0 {
			caught++
		} else {
			t.Logf("missed: %s (%s)", e.ID, e.Technique)
		}
		missing := false
		for _, r := range e.Expect {
			covered[r]++
			if !slices.Contains(got, r) {
				missing = true
				t.Errorf("%s: expected %s, got %v", e.ID, r, got)
			}
		}
		if !missing {
			exact++
		}
	}
	for _, r := range Rules() {
		if covered[r.Name] == 0 {
			t.Errorf("no definition of %s expects rule %s", file, r.Name)
		}
	}
	rate := float64(caught) / float64(len(entries))
	t.Logf("%s: %d of %d caught (%.1f %%); %d with every expected rule", file, caught, len(entries), 100*rate, exact)
	if rate < 0.95 {
		t.Errorf("catch rate %.1f %% < 95 %% (the missed ones are logged above)", 100*rate)
	}
}

// The hand-written benign corpus: the hard negative cases of every rule;
// none may be flagged.
func TestScanBenignCorpus(t *testing.T) {
	for _, e := range readCorpus(t, "testdata/benign.json") {
		if fs := Scan(e.raw); fs != nil {
			t.Errorf("%s (%s) flagged: %+v", e.ID, e.Technique, fs)
		}
	}
}

// The 2,375 real tool definitions of the shared eval set: at most 1 %
// flagged. The flagged ones are logged so a change shows what it costs.
func TestScanEvalFalsePositives(t *testing.T) {
	defs := evalDefinitions(t)
	flagged := 0
	for _, r := range ScanAll(defs) {
		if !r.Flagged() {
			continue
		}
		flagged++
		for _, f := range r.Findings {
			t.Logf("flagged: %s/%s  %s  %s  %q", r.Server, r.Name, f.Rule, f.Field, f.Excerpt)
		}
	}
	share := float64(flagged) / float64(len(defs))
	t.Logf("eval set: %d of %d flagged (%.2f %%)", flagged, len(defs), 100*share)
	if share > 0.01 {
		t.Errorf("benign share flagged %.2f %% > 1 %%", 100*share)
	}
}

// heldOutRound3Caught is how many of heldout-round3.json the rules caught
// when those definitions were first scanned; the rules were not changed
// for them, so the figure measures text the rules had not seen. The test
// keeps it from going down.
const heldOutRound3Caught = 12

func TestScanHeldOutRound3(t *testing.T) {
	entries := readCorpus(t, "testdata/heldout-round3.json")
	caught := 0
	for _, e := range entries {
		if Scan(e.raw) != nil {
			caught++
		} else {
			t.Logf("missed: %s (%s)", e.ID, e.Technique)
		}
	}
	t.Logf("testdata/heldout-round3.json: %d of %d caught (%.1f %%)", caught, len(entries), 100*float64(caught)/float64(len(entries)))
	if caught < heldOutRound3Caught {
		t.Errorf("%d caught, fewer than the %d at first sight", caught, heldOutRound3Caught)
	}
}
