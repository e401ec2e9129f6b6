package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/plughost/plughost/host/discovery"
)

// Search kinds of PreviewSearch: which search tool to preview.
const (
	SearchBM25  = "bm25"  // tool_search_tool_bm25 (query: keywords)
	SearchRegex = "regex" // tool_search_tool_regex (query: a pattern)
)

// SearchPreview is what a search tool would answer a new session.
type SearchPreview struct {
	// Tool is the search tool's name.
	Tool string `json:"tool"`
	// Text is the tool's answer exactly as the model would read it.
	Text string `json:"text"`
	// IsError reports that the answer is a tool error (bad pattern, the
	// tool is not offered, …); Text explains it.
	IsError bool `json:"is_error"`
	// Results are the tools found, best first.
	Results []PreviewResult `json:"results"`
	// WouldUnlock are the tools the search would unlock in the session
	// (their names; nothing is unlocked by a preview).
	WouldUnlock []string `json:"would_unlock"`
}

// PreviewResult is one tool a previewed search found.
type PreviewResult struct {
	// Name is the agent-facing name.
	Name string `json:"name"`
	// Server is the server's name in the config.
	Server string `json:"server"`
	// Description is the tool's description.
	Description string `json:"description,omitempty"`
}

// PreviewSearch returns what the search tool of kind (SearchBM25 or
// SearchRegex) would answer a new session asking query: the session
// search itself (discovery.View.Search), run on the current catalog and
// rules, without a session, so nothing is unlocked anywhere.
func (h *Host) PreviewSearch(_ context.Context, query, kind string) (SearchPreview, error) {
	var tool, key string
	switch kind {
	case SearchBM25, "":
		tool, key = discovery.BM25ToolName, "query"
	case SearchRegex:
		tool, key = discovery.RegexToolName, "pattern"
	default:
		return SearchPreview{}, fmt.Errorf("search kind %q: use %q or %q", kind, SearchBM25, SearchRegex)
	}
	args, err := json.Marshal(map[string]string{key: query})
	if err != nil {
		return SearchPreview{}, err
	}
	v := h.view()
	text, isError, found := v.Search(tool, args)
	p := SearchPreview{Tool: tool, Text: text, IsError: isError, Results: []PreviewResult{}, WouldUnlock: []string{}}
	for _, name := range found {
		t, ok := v.Lookup(name)
		if !ok {
			continue
		}
		p.Results = append(p.Results, PreviewResult{Name: t.Name, Server: t.Server, Description: t.Description})
		p.WouldUnlock = append(p.WouldUnlock, t.Name)
	}
	return p, nil
}
