package koanfd

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLayersAreValidJSONObjects(t *testing.T) {
	names, err := fs.Glob(Layers(), "*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no embedded layers")
	}
	layer := regexp.MustCompile(`^[0-9]{2}-[^/]+\.json$`)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if !layer.MatchString(name) {
				t.Errorf("%s is not named NN-*.json: it would not be applied", name)
			}
			b, err := fs.ReadFile(Layers(), name)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		})
	}
}

func TestDefaultsMatchSpec(t *testing.T) {
	b, err := fs.ReadFile(Layers(), "00-defaults.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var got struct {
		Tools struct {
			MCP map[string]any `json:"mcp"`
		} `json:"tools"`
	}
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"enabled": false,
		"discovery": map[string]any{
			"enabled": false, "ttl": json.Number("5"), "max_search_results": json.Number("5"),
			"use_bm25": true, "use_regex": false,
		},
		"max_inline_text_chars": json.Number("16384"),
		"servers":               map[string]any{},
	}
	for key, w := range want {
		if diff := cmp.Diff(w, got.Tools.MCP[key]); diff != "" {
			t.Errorf("tools.mcp.%s mismatch (-want +got):\n%s", key, diff)
		}
	}
}
