package main

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// maxField bounds a logged method or id: both come from the peer, and a log
// line must stay a line, not a copy of a payload.
const maxField = 128

// summary is what is logged about one JSON-RPC message.
type summary struct {
	// Kind is request, notification, response, error, batch or invalid.
	Kind string
	// Method is the method of a request or notification.
	Method string
	// ID is the JSON-RPC id as JSON text (`7`, `"a1"`), "" when absent.
	ID string
	// Bytes is the size of the whole message.
	Bytes int
}

// summarize classifies msg without keeping any of its params, result or error
// data.
func summarize(msg json.RawMessage) summary {
	s := summary{Bytes: len(msg)}
	trimmed := bytes.TrimSpace(msg)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		s.Kind = "batch"
		return s
	}
	var env struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(trimmed, &env); err != nil {
		s.Kind = "invalid"
		return s
	}
	s.Method = clip(env.Method)
	if len(env.ID) > 0 && string(env.ID) != "null" {
		s.ID = clip(string(env.ID))
	}
	switch {
	case env.Method != "" && s.ID != "":
		s.Kind = "request"
	case env.Method != "":
		s.Kind = "notification"
	case len(env.Error) > 0:
		s.Kind = "error"
	default:
		s.Kind = "response"
	}
	return s
}

// keyvals returns s as hclog key/value pairs, leaving out empty fields.
func (s summary) keyvals() []any {
	kv := []any{"kind", s.Kind}
	if s.Method != "" {
		kv = append(kv, "method", s.Method)
	}
	if s.ID != "" {
		kv = append(kv, "id", s.ID)
	}
	return append(kv, "bytes", s.Bytes)
}

func clip(s string) string {
	if len(s) <= maxField {
		return s
	}
	cut := maxField
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
