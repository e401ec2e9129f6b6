// Package play plays the parts of a conformance scenario that are neither
// plughost nor the suite, for plughost's two adapters (../client through
// the library, ../cliclient through the plughost command): the user's
// browser, which approves at once, and the model, which sends sample
// arguments.
package play

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Browse plays the user's browser: it opens the authorization URL and
// follows the redirects back to plughost's loopback callback, which must
// answer 200.
func Browse(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("browser: the login ended on HTTP %d", resp.StatusCode)
	}
	return nil
}

// SampleArguments returns a sample value for every required property of a
// tool's input schema (1 for numbers, "test" for strings, true for
// booleans), as a JSON object; {} for a schema it cannot read.
func SampleArguments(schema json.RawMessage) json.RawMessage {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return json.RawMessage(`{}`)
	}
	args := map[string]any{}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "number", "integer":
			args[name] = 1
		case "boolean":
			args[name] = true
		default:
			args[name] = "test"
		}
	}
	out, _ := json.Marshal(args) // plain values always encode
	return out
}
