package demoserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// inputValidator checks a call's arguments against its tool's input schema
// before the handler runs, and answers arguments that do not satisfy it
// with a tool error a model (and a person) can act on: each problem in the
// validator's own words, with the JSON pointer of the argument, e.g.
// "invalid arguments for echo: at /text: got number, want string".
// (mcp-go's WithInputSchemaValidation printed the validator's Go values:
// "&{Missing:[text]}".) Safe for concurrent use.
type inputValidator struct {
	srv *server.MCPServer

	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema // by tool name; nil: not checkable
}

func newInputValidator(srv *server.MCPServer) *inputValidator {
	return &inputValidator{srv: srv, schemas: map[string]*jsonschema.Schema{}}
}

// middleware is the tool handler middleware that validates.
func (v *inputValidator) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if msg := v.check(req.Params.Name, req.Params.Arguments); msg != "" {
			return mcp.NewToolResultError(msg), nil
		}
		return next(ctx, req)
	}
}

// check returns what is wrong with args for tool, or "".
func (v *inputValidator) check(tool string, args any) string {
	sch := v.schema(tool)
	if sch == nil {
		return ""
	}
	raw, err := json.Marshal(args)
	if err != nil || string(raw) == "null" {
		raw = []byte("{}")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Sprintf("invalid arguments for %s: not JSON: %v", tool, err)
	}
	err = sch.Validate(doc)
	if err == nil {
		return ""
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return fmt.Sprintf("invalid arguments for %s: %v", tool, err)
	}
	p := message.NewPrinter(language.English)
	return fmt.Sprintf("invalid arguments for %s: %s", tool, strings.Join(leaves(verr, p), "; "))
}

// leaves describes each leaf problem of a validation error: the argument's
// JSON pointer (none for the arguments as a whole) and the problem.
func leaves(e *jsonschema.ValidationError, p *message.Printer) []string {
	if len(e.Causes) > 0 {
		var out []string
		for _, c := range e.Causes {
			out = append(out, leaves(c, p)...)
		}
		return out
	}
	msg := e.ErrorKind.LocalizedString(p)
	if len(e.InstanceLocation) == 0 {
		return []string{msg}
	}
	return []string{"at /" + strings.Join(e.InstanceLocation, "/") + ": " + msg}
}

// schema returns the compiled input schema of tool (as the server lists
// it, strict default applied), nil when it has none that compiles.
func (v *inputValidator) schema(tool string) *jsonschema.Schema {
	v.mu.Lock()
	defer v.mu.Unlock()
	if sch, ok := v.schemas[tool]; ok {
		return sch
	}
	var sch *jsonschema.Schema
	if st := v.srv.GetTool(tool); st != nil {
		sch = compile(tool, st.Tool)
	}
	v.schemas[tool] = sch
	return sch
}

// compile compiles a tool's input schema, nil when it cannot.
func compile(name string, tool mcp.Tool) *jsonschema.Schema {
	raw, err := json.Marshal(tool.InputSchema)
	if len(tool.RawInputSchema) > 0 {
		raw, err = tool.RawInputSchema, nil
	}
	if err != nil {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	url := "mem:///demo/" + name + ".json"
	if c.AddResource(url, doc) != nil {
		return nil
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil
	}
	return sch
}
