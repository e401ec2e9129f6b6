package artifacts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Names of the paging tools offered to the model.
const (
	// ReadFileTool pages a workspace file by lines.
	ReadFileTool = "read_file"
	// SearchFilesTool searches workspace files with a regular expression.
	SearchFilesTool = "search_files"
)

// ToolDef is the definition of a paging tool as the model receives it.
type ToolDef struct {
	// Name is the tool name the model calls.
	Name string
	// Description tells the model when and how to use the tool.
	Description string
	// InputSchema is the JSON schema of the tool's arguments.
	InputSchema json.RawMessage
}

const readFileDescription = "Read a page of a file in the workspace, such as the full output of a tool " +
	"that was too long to show (the [file:...] path at the end of a truncated result). Returns numbered " +
	"lines from `offset` (1-based, default 1), at most `limit` lines (default 200, at most 2000), and says " +
	"how many lines remain and which offset continues."

const searchFilesDescription = "Search the saved full outputs of tools (files under the workspace's " +
	".artifacts directory, or the file or directory given as `path`) for lines matching an RE2 regular " +
	"expression; prefix the pattern with (?i) to ignore case. Returns matching lines as path:line: text, " +
	"so you can read around them with read_file. A search that runs too long stops and says so: then pass a " +
	"narrower path or a more specific pattern."

var (
	readFileSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File path inside the workspace: the path from a [file:...] reference, or a path relative to your workspace (for a named gateway client, the directory of its own saved results)."},` +
		`"offset":{"type":"integer","minimum":1,"description":"First line to return, counted from 1. Default 1."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":2000,"description":"Number of lines to return. Default 200."}},` +
		`"required":["path"],"additionalProperties":false}`)
	searchFilesSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"RE2 regular expression matched against each line, at most 500 characters; repetition counts at most 100."},` +
		`"path":{"type":"string","description":"File or directory inside the workspace to search. Default: all saved tool outputs."},` +
		`"max_results":{"type":"integer","minimum":1,"maximum":500,"description":"Most matching lines to return. Default 50."}},` +
		`"required":["pattern"],"additionalProperties":false}`)
)

// ToolDefs returns the definitions of read_file and search_files.
func ToolDefs() []ToolDef {
	return []ToolDef{
		{Name: ReadFileTool, Description: readFileDescription, InputSchema: readFileSchema},
		{Name: SearchFilesTool, Description: searchFilesDescription, InputSchema: searchFilesSchema},
	}
}

// IsTool reports whether name is one of the paging tools.
func IsTool(name string) bool { return name == ReadFileTool || name == SearchFilesTool }

// HandleTool runs a paging tool with its JSON arguments; budget caps the
// characters of the answer. Bad arguments and refused paths come back as
// text with isError set, for the model to correct its call.
func (s *Store) HandleTool(ctx context.Context, name string, args json.RawMessage, budget int) (text string, isError bool) {
	var err error
	switch name {
	case ReadFileTool:
		var a struct {
			Path   string `json:"path"`
			Offset int    `json:"offset"`
			Limit  int    `json:"limit"`
		}
		if err = decodeArgs(args, &a); err == nil {
			text, err = s.ReadFile(ctx, ReadRequest{Path: a.Path, Offset: a.Offset, Limit: a.Limit, Budget: budget})
		}
	case SearchFilesTool:
		var a struct {
			Pattern    string `json:"pattern"`
			Path       string `json:"path"`
			MaxResults int    `json:"max_results"`
		}
		if err = decodeArgs(args, &a); err == nil {
			text, err = s.SearchFiles(ctx, SearchRequest{Pattern: a.Pattern, Path: a.Path, MaxResults: a.MaxResults, Budget: budget})
		}
	default:
		err = fmt.Errorf("unknown paging tool %q", name)
	}
	if err != nil {
		return fmt.Sprintf("%s: %v", name, err), true
	}
	return text, false
}

// decodeArgs decodes a JSON object strictly: an unknown or mistyped
// argument is an error naming it.
func decodeArgs(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}
