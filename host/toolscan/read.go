package toolscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ReadError says what is wrong with a file of definitions: where (a JSON
// path such as $.result.tools[3]), what was expected, and how to fix it.
type ReadError struct {
	// Path is the JSON path of the offending value, "$" for the whole.
	Path string
	// Problem says what was found and what was expected there.
	Problem string
	// Fix says what to do about it.
	Fix string
}

// Error implements error: "<path>: <problem>; <fix>".
func (e *ReadError) Error() string {
	return fmt.Sprintf("%s: %s; %s", e.Path, e.Problem, e.Fix)
}

const readFix = `give a tools/list result {"tools": [...]}, a JSON-RPC response whose "result" is one, or a JSON array of tool objects`

// ReadDefinitions reads tool definitions from an MCP tools/list result
// ({"tools": [...]}), a JSON-RPC response whose result is one, or a JSON
// array of tools. Every tool must be a JSON object; errors are *ReadError.
func ReadDefinitions(data []byte) ([]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, &ReadError{"$", "the input is empty", readFix}
	}
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, syntaxError(data, err)
	}
	switch data[0] {
	case '[':
		return readArray("$", data)
	case '{':
		return readObject("$", data)
	}
	return nil, &ReadError{"$", "found " + kindOf(data) + ", expected a JSON object or array", readFix}
}

func readObject(path string, data []byte) ([]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, &ReadError{path, "found " + kindOf(data) + ", expected a JSON object", readFix}
	}
	if tools, ok := obj["tools"]; ok {
		return readArray(path+".tools", tools)
	}
	if res, ok := obj["result"]; ok {
		if len(res) == 0 || res[0] != '{' {
			return nil, &ReadError{path + ".result", "found " + kindOf(res) + `, expected a tools/list result {"tools": [...]}`, "scan the response to a tools/list request"}
		}
		return readObject(path+".result", res)
	}
	if e, ok := obj["error"]; ok {
		return nil, &ReadError{path + ".error", "the JSON-RPC response is an error: " + string(bytes.TrimSpace(e)), "scan a successful tools/list response"}
	}
	if _, ok := obj["name"]; ok {
		return nil, &ReadError{path, "found a single tool object, expected a list of tools", `wrap it: [ {...} ] or {"tools": [ {...} ]}`}
	}
	return nil, &ReadError{path, `found an object with neither "tools" nor "result"`, readFix}
}

func readArray(path string, data []byte) ([]json.RawMessage, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, &ReadError{path, "found " + kindOf(data) + ", expected an array of tool objects", readFix}
	}
	for i, t := range list {
		t = bytes.TrimSpace(t)
		if len(t) == 0 || t[0] != '{' {
			return nil, &ReadError{fmt.Sprintf("%s[%d]", path, i), "found " + kindOf(t) + `, expected a tool object {"name": ..., "description": ..., "inputSchema": {...}}`, "remove it or replace it with the tool's definition"}
		}
		list[i] = t
	}
	return list, nil
}

// syntaxError names the line and column of a JSON syntax error.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
		col := int(se.Offset) - bytes.LastIndexByte(data[:se.Offset], '\n') - 1
		return &ReadError{"$", fmt.Sprintf("not valid JSON at line %d, column %d: %v", line, col, se), "fix the JSON (a tools/list result or an array of tools)"}
	}
	return &ReadError{"$", "not valid JSON: " + err.Error(), "fix the JSON (a tools/list result or an array of tools)"}
}

func kindOf(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
