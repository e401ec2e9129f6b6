package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/plughost/plughost/host/registry"
)

// Search answers the model's call of the search tool toolName with args.
// It searches every tool of a deferred server, whether hidden or already
// unlocked (finding an unlocked tool again renews its TTL); tools of
// servers that are not deferred are always in the model's list and never
// returned. It returns at most MaxResults tools with their names,
// descriptions and input schemas, as JSON text for the model, and found:
// their names, which the caller unlocks in the session (Unlock). No match
// gets advice on what is searchable and how to rephrase, never an empty
// list. Bad arguments, a bad pattern, an unknown or disabled search tool
// and a searcher failure are tool errors: isError is true and text explains
// the problem. It reads no session state, and costs O(results) whatever the
// catalog's size.
func (v *View) Search(toolName string, args json.RawMessage) (text string, isError bool, found []string) {
	return v.SearchFor(toolName, args, nil)
}

// SearchFor is Search for a client that may see only the tools keep
// accepts (nil: every tool): a tool it rejects is never returned, counted
// or named, as if it did not exist. A limited search asks the index for
// every hit, since any number of them may be filtered out.
func (v *View) SearchFor(toolName string, args json.RawMessage, keep func(registry.Tool) bool) (text string, isError bool, found []string) {
	r := v.rules
	k := r.settings.MaxResults*2 + v.snap.Len() - v.hidden // room for the hits filtered out
	if keep != nil {
		k = r.settings.MaxResults + v.snap.Len()
	}
	hits, query, err := r.run(toolName, args, k)
	if err != nil {
		return err.Error(), true, nil
	}
	tools := v.pick(hits, r.settings.MaxResults, keep)
	if len(tools) == 0 {
		return v.noMatch(toolName, query, keep), false, nil
	}
	found = make([]string, len(tools))
	for i, t := range tools {
		found[i] = t.Name
	}
	return r.formatFound(toolName, query, tools), false, found
}

// Unlock returns st with the tools found by a search unlocked (or renewed)
// for TTL turns.
func (v *View) Unlock(st Unlocks, found []string) Unlocks {
	return st.Unlock(v.rules.settings.TTL, found...)
}

// run parses args for the search tool toolName and runs its engine; query
// is the query or pattern the model gave.
func (r *Rules) run(toolName string, args json.RawMessage, k int) (hits []Hit, query string, err error) {
	if !r.IsSearchTool(toolName) {
		return nil, "", r.notSearchTool(toolName)
	}
	key, engine := "query", r.deps.Searcher.Search
	if toolName == RegexToolName {
		key, engine = "pattern", r.deps.Searcher.Regex
	}
	query, err = stringArg(args, key)
	if err == nil && toolName == RegexToolName {
		err = checkPattern(query)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", toolName, err)
	}
	hits, err = engine(query, k)
	if err != nil {
		return nil, "", fmt.Errorf("%s: search failed: %w", toolName, err)
	}
	return hits, query, nil
}

// notSearchTool explains a call of a search tool this host does not offer.
func (r *Rules) notSearchTool(name string) error {
	var offered []string
	for _, t := range r.SearchTools() {
		offered = append(offered, t.Name)
	}
	if len(offered) == 0 {
		return fmt.Errorf("%s is not available: tool search is off and every tool is already in your tool list", name)
	}
	return fmt.Errorf("%s is not available; use %s", name, strings.Join(offered, " or "))
}

// pick keeps the first limit hits that name hidden tools, in hit order.
func (v *View) pick(hits []Hit, limit int, keep func(registry.Tool) bool) []registry.Tool {
	var out []registry.Tool
	seen := map[string]bool{}
	for _, h := range hits {
		t, ok := v.snap.Lookup(h.ID)
		if !ok || !v.rules.Hidden(t) || seen[h.ID] || (keep != nil && !keep(t)) {
			continue
		}
		seen[h.ID] = true
		out = append(out, t)
		if len(out) == limit {
			break
		}
	}
	return out
}

// result is one search result as the model reads it.
type result struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// formatFound renders the tools a search found: a line saying they are now
// callable, then a JSON array with one tool per line.
func (r *Rules) formatFound(toolName, query string, tools []registry.Tool) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Found %d tool%s for %s %q. They are unlocked now: call them by name "+
		"(they stay available for %d turn%s; each use renews that).\n[\n",
		len(tools), plural(len(tools)), argName(toolName), query, r.settings.TTL, plural(r.settings.TTL))
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, t := range tools {
		schema := t.InputSchema
		if !json.Valid(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		// Encoding plain strings and valid JSON cannot fail.
		_ = enc.Encode(result{Name: t.Name, Server: t.Server, Description: t.Description, InputSchema: schema})
		if i < len(tools)-1 {
			b.Truncate(b.Len() - 1)
			b.WriteString(",\n")
		}
	}
	b.WriteString("]")
	return b.String()
}

// noMatch tells the model what it can search and how to try again.
func (v *View) noMatch(toolName, query string, keep func(registry.Tool) bool) string {
	r := v.rules
	hidden, servers := v.hidden, v.servers
	if keep != nil {
		hidden, servers = v.hiddenFor(keep)
	}
	if hidden == 0 {
		return "No tools are hidden: every available tool is already in your tool list, so there is nothing to search."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "No hidden tool matches %s %q. The search covers %d tool%s of the servers %s "+
		"(tool and server names, descriptions and parameters); tools already in your tool list are not searched.\n",
		argName(toolName), query, hidden, plural(hidden), serverList(servers))
	if toolName == RegexToolName {
		b.WriteString("Try a simpler or broader pattern: it is case-insensitive and matches anywhere in the text, " +
			"so \"issue\" finds more than \"^create_issue$\", and alternatives such as \"issue|ticket|bug\" widen it.")
		if r.settings.UseBM25 {
			fmt.Fprintf(&b, " Or describe what you need in words with %s.", BM25ToolName)
		}
		return b.String()
	}
	b.WriteString("Try again with other words: fewer or more general keywords, a synonym, the action and its " +
		"object (for example \"create issue\" or \"list files\"), or a server name.")
	if r.settings.UseRegex {
		fmt.Fprintf(&b, " Or match names and descriptions with a pattern using %s, for example \"issue|ticket\".", RegexToolName)
	}
	return b.String()
}

// hiddenFor counts the hidden tools keep accepts and names their servers
// (sorted). It costs O(catalog), only for a limited client's search that
// found nothing.
func (v *View) hiddenFor(keep func(registry.Tool) bool) (int, []string) {
	n, seen := 0, map[string]bool{}
	var servers []string
	for _, t := range v.snap.Sorted() {
		if !v.rules.Hidden(t) || !keep(t) {
			continue
		}
		n++
		if !seen[t.Server] {
			seen[t.Server] = true
			servers = append(servers, t.Server)
		}
	}
	sort.Strings(servers)
	return n, servers
}

// serverList names servers (sorted), at most 20.
func serverList(names []string) string {
	const most = 20
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

func argName(toolName string) string {
	if toolName == RegexToolName {
		return "pattern"
	}
	return "query"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
