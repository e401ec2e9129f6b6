package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// toolList returns the tools the model sees now, in the API's form.
func (a *Agent) toolList(ctx context.Context) ([]Tool, error) {
	defs, err := a.sess.ToolDefinitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the session's tools: %w", err)
	}
	out := make([]Tool, 0, len(defs))
	for _, d := range defs {
		t, err := apiTool(d)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// apiTool turns an MCP tool definition into a function tool.
func apiTool(def json.RawMessage) (Tool, error) {
	var d struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(def, &d); err != nil {
		return Tool{}, fmt.Errorf("read a tool definition: %w", err)
	}
	params := d.InputSchema
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return Tool{Type: "function", Function: ToolFunction{Name: d.Name, Description: d.Description, Parameters: params}}, nil
}

// DefaultSystem is the system prompt's start when Options.System is "".
const DefaultSystem = "You are a helpful assistant with tools from MCP servers. " +
	"Call a tool when it helps to answer; when you are done, answer in plain text."

// systemPrompt is Options.System, or DefaultSystem with what the session
// offers explained: the search tools, and reading saved results.
func (a *Agent) systemPrompt(ctx context.Context) string {
	if a.opts.System != "" {
		return a.opts.System
	}
	var b strings.Builder
	b.WriteString(DefaultSystem)
	var search []string
	if tools, err := a.sess.Visible(ctx); err == nil {
		for _, t := range tools {
			if a.sess.IsSearchTool(t.Name) {
				search = append(search, t.Name)
			}
		}
	}
	if len(search) > 0 {
		fmt.Fprintf(&b, " Most tools are hidden: find the ones you need with %s; the tools it returns become callable for the next few rounds.", strings.Join(search, " or "))
	}
	b.WriteString(" A result too long to show is cut and ends with [file:<path>]: read the rest with read_file {\"path\", \"offset\"} or search it with search_files {\"pattern\", \"path\"}.")
	return b.String()
}
