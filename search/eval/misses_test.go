package eval

import "testing"

func TestCountMissesSortsWhatWasRankedFirst(t *testing.T) {
	want := []ToolRef{{"notes", "get_note"}}
	qs := []Query{
		{ID: "hit", Query: "hit", Relevant: want},
		{ID: "sibling", Query: "sibling", Relevant: want},
		{ID: "namesake", Query: "namesake", Relevant: want},
		{ID: "other", Query: "other", Relevant: want},
		{ID: "none", Query: "none", Relevant: want},
	}
	s := fixed{
		"hit":      {ToolID("notes", "get_note")},
		"sibling":  {ToolID("notes", "get_notes"), ToolID("notes", "get_note")},
		"namesake": {ToolID("bear", "Get-Note")},
		"other":    {ToolID("mail", "send"), "x1", "x2", "x3", "x4", ToolID("notes", "get_note")},
	}
	m, err := CountMisses(s, qs)
	if err != nil {
		t.Fatal(err)
	}
	want2 := Misses{N: 5, NotFirst: 4, Sibling: 1, Namesake: 1, Other: 2, NotInTop5: 3}
	if m != want2 {
		t.Errorf("misses = %+v, want %+v", m, want2)
	}
	if got := m.R1IfNamesakesCounted(); got != 0.4 {
		t.Errorf("R1IfNamesakesCounted = %v, want 0.4 (the hit and the namesake)", got)
	}
}
