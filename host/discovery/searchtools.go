package discovery

import (
	"encoding/json"
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Names of the search tools offered to the model.
const (
	// BM25ToolName is the keyword / natural-language search tool.
	BM25ToolName = "tool_search_tool_bm25"
	// RegexToolName is the regular-expression search tool.
	RegexToolName = "tool_search_tool_regex"
)

// MaxPatternLen is the longest regex pattern, in characters, that
// tool_search_tool_regex accepts.
const MaxPatternLen = 200

// SearchTool is the definition of a search tool as the model receives it.
type SearchTool struct {
	// Name is the tool name the model calls.
	Name string `json:"name"`
	// Description tells the model when and how to use the tool.
	Description string `json:"description"`
	// InputSchema is the JSON schema of the tool's arguments.
	InputSchema json.RawMessage `json:"input_schema"`
}

const bm25Description = "Search the library of hidden tools by keywords or a short natural-language " +
	"description of what you want to do (for example \"create a github issue\" or \"query postgres table\"). " +
	"Most tools are hidden to save context: search before concluding that a capability is missing. " +
	"Returns the best matching tools with their names, descriptions and input schemas; the returned " +
	"tools become callable by name for the next few turns."

const regexDescription = "Search the library of hidden tools with a regular expression (RE2 syntax, " +
	"case-insensitive, at most 200 characters) matched against tool names, server names, descriptions " +
	"and parameter names, for example \"github.*issue\" or \"^mcp_postgres_\" or \"read|write\". " +
	"Returns the matching tools with their names, descriptions and input schemas; the returned " +
	"tools become callable by name for the next few turns."

var (
	bm25Schema  = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Keywords or a short description of the capability you need."}},"required":["query"]}`)
	regexSchema = json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string","description":"RE2 regular expression, case-insensitive, at most 200 characters."}},"required":["pattern"]}`)
)

// searchTools returns the definitions of the engines s enables, BM25 first.
func searchTools(s Settings) []SearchTool {
	if !s.Enabled {
		return nil
	}
	var out []SearchTool
	if s.UseBM25 {
		out = append(out, SearchTool{Name: BM25ToolName, Description: bm25Description, InputSchema: bm25Schema})
	}
	if s.UseRegex {
		out = append(out, SearchTool{Name: RegexToolName, Description: regexDescription, InputSchema: regexSchema})
	}
	return out
}

// stringArg reads the string field key of a JSON object of arguments.
func stringArg(args json.RawMessage, key string) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return "", fmt.Errorf("arguments must be a JSON object like {%q: \"...\"}", key)
	}
	raw, ok := m[key]
	if !ok {
		return "", fmt.Errorf("missing required argument %q", key)
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("argument %q must be a string", key)
	}
	if strings.TrimSpace(v) == "" {
		return "", fmt.Errorf("argument %q is empty", key)
	}
	return v, nil
}

// checkPattern enforces the regex tool's rules before the searcher runs, so
// the model gets the same message whatever the engine: at most MaxPatternLen
// characters, valid RE2 syntax.
func checkPattern(pattern string) error {
	if n := utf8.RuneCountInString(pattern); n > MaxPatternLen {
		return fmt.Errorf("pattern is %d characters long; at most %d are allowed: use a shorter pattern, "+
			"for example a few alternatives such as \"issue|ticket\"", n, MaxPatternLen)
	}
	if _, err := syntax.Parse(pattern, syntax.Perl|syntax.FoldCase); err != nil {
		return fmt.Errorf("invalid regular expression (RE2 syntax): %w", err)
	}
	return nil
}
