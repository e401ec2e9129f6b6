package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/plughost/plughost/search"
)

// Tool is one entry of a tools file.
type Tool struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Server is one entry of a servers file.
type Server struct {
	Server      string `json:"server"`
	Description string `json:"description"`
}

// ToolRef names a tool as [server, name].
type ToolRef [2]string

// Query is one single-tool query: solved at k when any Relevant tool is in
// the top k.
type Query struct {
	ID       string    `json:"id"`
	Level    int       `json:"level"`
	Query    string    `json:"query"`
	Relevant []ToolRef `json:"relevant"`
}

// MultiQuery is one multi-step query: each step lists its acceptable tools.
type MultiQuery struct {
	ID    string      `json:"id"`
	Level int         `json:"level"`
	Query string      `json:"query"`
	Steps [][]ToolRef `json:"steps"`
}

// LoadJSON decodes the JSON file at path into a new T.
func LoadJSON[T any](path string) (T, error) {
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		return v, fmt.Errorf("eval: %w", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("eval: decode %s: %w", path, err)
	}
	return v, nil
}

// IsMultiStep reports whether the queries file at path is a multi-step file
// (its queries have "steps").
func IsMultiStep(path string) (bool, error) {
	qs, err := LoadJSON[[]struct {
		Steps json.RawMessage `json:"steps"`
	}](path)
	if err != nil {
		return false, err
	}
	return len(qs) > 0 && len(qs[0].Steps) > 0, nil
}

// ToolID is the document ID the evaluation gives a tool.
func ToolID(server, name string) string { return server + "\x00" + name }

// Params returns the top-level properties of a JSON input schema as search
// parameters, sorted by name. A schema that does not decode has none.
func Params(schema json.RawMessage) []search.Param {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]search.Param, 0, len(s.Properties))
	for name, p := range s.Properties {
		out = append(out, search.Param{Name: name, Description: p.Description})
	}
	slices.SortFunc(out, func(a, b search.Param) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// DocsByServer turns tools into search documents grouped by server, in the
// order servers first appear. serverDesc (optional) maps a server to its
// description. Repeated (server, name) pairs keep the first.
func DocsByServer(tools []Tool, serverDesc map[string]string) (servers []string, docs map[string][]search.Doc) {
	docs = map[string][]search.Doc{}
	seen := map[string]bool{}
	for _, t := range tools {
		id := ToolID(t.Server, t.Name)
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, ok := docs[t.Server]; !ok {
			servers = append(servers, t.Server)
		}
		docs[t.Server] = append(docs[t.Server], search.Doc{
			ID: id, Server: t.Server, Name: t.Name, Description: t.Description,
			Params: Params(t.InputSchema), ServerDescription: serverDesc[t.Server],
		})
	}
	return servers, docs
}

// BuildIndex indexes tools in one ReplaceServers batch.
func BuildIndex(tools []Tool, serverDesc map[string]string, opts ...search.Option) (*search.Index, error) {
	ix, err := search.New(opts...)
	if err != nil {
		return nil, err
	}
	_, docs := DocsByServer(tools, serverDesc)
	if err := ix.ReplaceServers(docs); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// ServerDescriptions maps each server of servers to its description.
func ServerDescriptions(servers []Server) map[string]string {
	m := make(map[string]string, len(servers))
	for _, s := range servers {
		m[s.Server] = s.Description
	}
	return m
}

// LoadData reads a benchmark: the tools file, the servers file (optional:
// "" for none) and each queries file, single-tool or multi-step (told
// apart by its content).
func LoadData(toolsFile, serversFile string, queryFiles []string) (Data, error) {
	var d Data
	var err error
	if d.Tools, err = LoadJSON[[]Tool](toolsFile); err != nil {
		return d, err
	}
	if serversFile != "" {
		servers, err := LoadJSON[[]Server](serversFile)
		if err != nil {
			return d, err
		}
		d.Servers = ServerDescriptions(servers)
	}
	for _, f := range queryFiles {
		multi, err := IsMultiStep(f)
		if err != nil {
			return d, err
		}
		if multi {
			qs, err := LoadJSON[[]MultiQuery](f)
			if err != nil {
				return d, err
			}
			d.Multi = append(d.Multi, qs...)
		} else {
			qs, err := LoadJSON[[]Query](f)
			if err != nil {
				return d, err
			}
			d.Single = append(d.Single, qs...)
		}
	}
	return d, nil
}
