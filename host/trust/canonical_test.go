package trust_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plughost/plughost/host/trust"
)

// base is a tool definition as a server might list it.
const base = `{
  "name": "read_file",
  "title": "Read",
  "description": "Reads a file.",
  "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 4096}}, "required": ["path"]},
  "outputSchema": {"type": "object"},
  "annotations": {"readOnlyHint": true, "title": "Read"},
  "_meta": {"x": 1}
}`

func digest(t *testing.T, def string) string {
	t.Helper()
	d, err := trust.Digest(json.RawMessage(def))
	if err != nil {
		t.Fatalf("digest of %s: %v", def, err)
	}
	return d
}

// The same definition, differently written, has the same digest; any other
// change of a covered field changes it; the other fields do not count.
func TestDigestCoversWhatTheModelReads(t *testing.T) {
	want := digest(t, base)
	if !strings.HasPrefix(want, "sha256:") || len(want) != len("sha256:")+64 {
		t.Fatalf("digest %q, want sha256:<64 hex digits>", want)
	}
	for _, c := range []struct {
		name, def string
		same      bool
	}{
		{"reordered and reindented", `{"annotations":{"title":"Read","readOnlyHint":true},"outputSchema":{"type":"object"},
			"inputSchema":{"required":["path"],"properties":{"path":{"maxLength":4096,"type":"string"}},"type":"object"},
			"description":"Reads a file.","title":"Read","name":"read_file"}`, true},
		{"_meta changed", strings.Replace(base, `"x": 1`, `"x": 2, "y": [1]`, 1), true},
		{"_meta removed, icons and execution added", strings.Replace(base, `"_meta": {"x": 1}`, `"icons": [{"src": "a.png"}], "execution": {"taskSupport": "optional"}`, 1), true},
		{"one byte of the description", strings.Replace(base, "Reads a file.", "Reads a file!", 1), false},
		{"description with a trailing space", strings.Replace(base, "Reads a file.", "Reads a file. ", 1), false},
		{"description escaped differently", strings.Replace(base, "Reads a file.", `Reads a file\u002e`, 1), true}, // the same string
		{"name", strings.Replace(base, `"read_file"`, `"read_files"`, 1), false},
		{"title", strings.Replace(base, `"title": "Read",`, `"title": "Reader",`, 1), false},
		{"a nested schema value", strings.Replace(base, "4096", "4097", 1), false},
		{"a number written differently", strings.Replace(base, "4096", "4096.0", 1), false},
		{"the order of an array", strings.Replace(base, `"required": ["path"]`, `"required": ["path", "x"]`, 1), false},
		{"output schema removed", strings.Replace(base, `"outputSchema": {"type": "object"},`, "", 1), false},
		{"an annotation", strings.Replace(base, `"readOnlyHint": true`, `"readOnlyHint": false`, 1), false},
		{"an annotation added", strings.Replace(base, `"readOnlyHint": true`, `"readOnlyHint": true, "destructiveHint": false`, 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := digest(t, c.def); (got == want) != c.same {
				t.Errorf("same digest: %v, want %v", got == want, c.same)
			}
		})
	}
}

// The canonical form: covered keys only, sorted at every depth, compact,
// numbers as written, HTML characters as they are.
func TestCanonicalForm(t *testing.T) {
	for _, c := range []struct{ name, def, want string }{
		{"sorted and compact", base,
			`{"annotations":{"readOnlyHint":true,"title":"Read"},"description":"Reads a file.",` +
				`"inputSchema":{"properties":{"path":{"maxLength":4096,"type":"string"}},"required":["path"],"type":"object"},` +
				`"name":"read_file","outputSchema":{"type":"object"},"title":"Read"}`},
		{"numbers exact", `{"name":"n","inputSchema":{"a":123456789012345678901234567890,"b":1.0,"c":1e2,"d":-0.10,"e":9007199254740993}}`,
			`{"inputSchema":{"a":123456789012345678901234567890,"b":1.0,"c":1e2,"d":-0.10,"e":9007199254740993},"name":"n"}`},
		{"HTML kept", `{"name":"h","description":"<IMPORTANT>a & b</IMPORTANT> \u003cx\u003e"}`,
			`{"description":"<IMPORTANT>a & b</IMPORTANT> <x>","name":"h"}`},
		{"null kept", `{"name":"z","description":null,"outputSchema":null}`, `{"description":null,"name":"z","outputSchema":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := trust.Canonical(json.RawMessage(c.def))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("canonical:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// A definition trust cannot cover is refused with what is wrong.
func TestCanonicalRefuses(t *testing.T) {
	for _, c := range []struct{ name, def, want string }{
		{"not JSON", `{"name":`, "not valid JSON"},
		{"trailing data", `{"name":"a"} {}`, "more data after the object"},
		{"array", `[{"name":"a"}]`, "is an array, want a JSON object"},
		{"string", `"a"`, "is a string, want a JSON object"},
		{"null", `null`, "is null, want a JSON object"},
		{"no name", `{"description":"d"}`, "no name"},
		{"name a number", `{"name":3}`, "name is a number"},
		{"empty name", `{"name":""}`, "an empty name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := trust.Canonical(json.RawMessage(c.def))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
			if _, err := trust.Digest(json.RawMessage(c.def)); err == nil {
				t.Error("Digest accepted it")
			}
		})
	}
}

// Canonical is idempotent and never panics; the canonical form of an
// accepted definition is accepted and has the same digest.
func FuzzCanonical(f *testing.F) {
	for _, seed := range []string{base, `{"name":"a","inputSchema":{"x":[1,2.50,{"b":null,"a":"<>&"}]}}`, `{}`, `[]`, `{"name":"\ud800"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, def string) {
		c, err := trust.Canonical(json.RawMessage(def))
		if err != nil {
			return
		}
		again, err := trust.Canonical(c)
		if err != nil {
			t.Fatalf("the canonical form %s is refused: %v", c, err)
		}
		if string(again) != string(c) {
			t.Fatalf("canonical of canonical:\n%s\nwant:\n%s", again, c)
		}
	})
}
