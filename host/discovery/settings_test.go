package discovery

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/registry"
)

func TestSettingsValidate(t *testing.T) {
	for _, c := range []struct {
		name    string
		s       Settings
		wantErr []string // substrings; nil means valid
	}{
		{"bm25 only", Settings{Enabled: true, TTL: 5, MaxResults: 5, UseBM25: true}, nil},
		{"regex only", Settings{Enabled: true, TTL: 5, MaxResults: 5, UseRegex: true}, nil},
		{"both", Settings{Enabled: true, TTL: 5, MaxResults: 5, UseBM25: true, UseRegex: true}, nil},
		{"neither", Settings{Enabled: true, TTL: 5, MaxResults: 5},
			[]string{"tools.mcp.discovery.use_bm25", "tools.mcp.discovery.use_regex"}},
		{"ttl 0", Settings{Enabled: true, TTL: 0, MaxResults: 5, UseBM25: true}, []string{"tools.mcp.discovery.ttl"}},
		{"max results 0", Settings{Enabled: true, TTL: 5, MaxResults: 0, UseBM25: true},
			[]string{"tools.mcp.discovery.max_search_results"}},
		{"off ignores the rest", Settings{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.s.Validate()
			if (err != nil) != (c.wantErr != nil) {
				t.Fatalf("Validate() = %v; want error %v", err, c.wantErr != nil)
			}
			for _, sub := range c.wantErr {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not name %s", err, sub)
				}
			}
			if _, err := New(c.s, Deps{Searcher: &fakeSearcher{}}); (err != nil) != (c.wantErr != nil) {
				t.Errorf("New: %v; want error %v", err, c.wantErr != nil)
			}
		})
	}
}

func TestNoEngineIsTyped(t *testing.T) {
	_, err := FromConfig(config.Discovery{Enabled: true, TTL: 5, MaxSearchResults: 5})
	var ve *config.ValidationError
	if !errors.As(err, &ve) || ve.Path != "tools.mcp.discovery.use_bm25" {
		t.Fatalf("got %v; want a *config.ValidationError at tools.mcp.discovery", err)
	}
}

// The limits are config's: max_search_results above the limit fails here
// exactly as in the config validator (one check, not two).
func TestLimitsAreTheConfigs(t *testing.T) {
	over := Settings{Enabled: true, TTL: 5, MaxResults: config.MaxSearchResultsLimit + 1, UseBM25: true}
	err := over.Validate()
	want := config.CheckDiscovery(config.Discovery{Enabled: true, TTL: 5, MaxSearchResults: config.MaxSearchResultsLimit + 1, UseBM25: true})
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("Validate() = %v; config.CheckDiscovery = %v; want the same error", err, want)
	}
}

func TestNewNeedsSearcherWhenEnabled(t *testing.T) {
	if _, err := New(on(), Deps{}); err == nil {
		t.Fatal("New without a searcher: want an error")
	}
	if _, err := New(Settings{}, Deps{}); err != nil {
		t.Fatalf("discovery off needs no searcher: %v", err)
	}
}

func TestEngineSelection(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Settings
		want []string
	}{
		{"bm25 only", Settings{Enabled: true, TTL: 1, MaxResults: 1, UseBM25: true}, []string{BM25ToolName}},
		{"regex only", Settings{Enabled: true, TTL: 1, MaxResults: 1, UseRegex: true}, []string{RegexToolName}},
		{"both", Settings{Enabled: true, TTL: 1, MaxResults: 1, UseBM25: true, UseRegex: true},
			[]string{BM25ToolName, RegexToolName}},
		{"discovery off", Settings{UseBM25: true, UseRegex: true}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := New(c.s, Deps{Searcher: &fakeSearcher{}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, st := range r.SearchTools() {
				got = append(got, st.Name)
				if !r.IsSearchTool(st.Name) {
					t.Errorf("IsSearchTool(%s) = false", st.Name)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("search tools (-want +got):\n%s", diff)
			}
			for _, n := range []string{BM25ToolName, RegexToolName} {
				if r.IsSearchTool(n) != contains(c.want, n) {
					t.Errorf("IsSearchTool(%s) = %v", n, r.IsSearchTool(n))
				}
			}
		})
	}
}

func TestSearchToolSchemas(t *testing.T) {
	r, err := New(on(), Deps{Searcher: &fakeSearcher{}})
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Type       string                       `json:"type"`
		Properties map[string]map[string]string `json:"properties"`
		Required   []string                     `json:"required"`
	}
	want := map[string]string{BM25ToolName: "query", RegexToolName: "pattern"}
	for _, st := range r.SearchTools() {
		var s schema
		if err := json.Unmarshal(st.InputSchema, &s); err != nil {
			t.Fatalf("%s schema: %v", st.Name, err)
		}
		key := want[st.Name]
		if s.Type != "object" || s.Properties[key]["type"] != "string" || !cmp.Equal(s.Required, []string{key}) {
			t.Errorf("%s schema %s; want required string %q", st.Name, st.InputSchema, key)
		}
		if st.Description == "" {
			t.Errorf("%s has no description", st.Name)
		}
	}
}

func TestDefinitionBytes(t *testing.T) {
	tools := []registry.Tool{
		{Name: "mcp_a_x", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "mcp_a_y", InputSchema: json.RawMessage(`not json`)},
	}
	want := len(`{"name":"mcp_a_x","description":"d","input_schema":{"type":"object"}}`) +
		len(`{"name":"mcp_a_y","input_schema":{"type":"object"}}`)
	if got := DefinitionBytes(tools); got != want {
		t.Fatalf("DefinitionBytes = %d, want %d", got, want)
	}
	if EstimateTokens(8) != 2 || EstimateTokens(9) != 3 {
		t.Fatal("EstimateTokens rounds wrong")
	}
}
