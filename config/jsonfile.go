package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// syntaxError is malformed JSON at a byte offset.
type syntaxError struct {
	offset int64
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }

// decodeJSON decodes exactly one JSON value, numbers as json.Number.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxErr(err, int64(len(data)))
	}
	end := dec.InputOffset()
	var extra any
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
		return v, nil
	case err == nil:
		return nil, &syntaxError{offset: skipSpace(data, end), msg: "unexpected data after the top-level value"}
	default:
		return nil, syntaxErr(err, int64(len(data)))
	}
}

func syntaxErr(err error, size int64) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &syntaxError{offset: max(se.Offset-1, 0), msg: se.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &syntaxError{offset: size, msg: "unexpected end of input (is a closing } or ] missing?)"}
	}
	return &syntaxError{offset: 0, msg: err.Error()}
}

// skipSpace returns the offset of the first non-space byte of data at or
// after off, so that a report points at the extra value, not at the
// whitespace before it.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n"), data[off]) >= 0 {
		off++
	}
	return off
}

// parseLayer parses a config file's content into a JSON object. An empty (or
// all-blank) file is an empty layer. The returned message names the file and
// the line and column of a syntax error.
func parseLayer(name string, data []byte) (map[string]any, string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, ""
	}
	v, err := decodeJSON(data)
	if err != nil {
		se := &syntaxError{msg: err.Error()}
		errors.As(err, &se)
		line, col := lineCol(data, se.offset)
		return nil, fmt.Sprintf("%s: invalid JSON at line %d, column %d: %s; fix the syntax there (a missing or trailing comma, or a missing quote, is the usual cause)", name, line, col, se.msg)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Sprintf(`%s: expected a JSON object at the top level, got %s; write the config as {"tools": {"mcp": {...}}}`, name, describeValue(v, true))
	}
	return m, ""
}

// lineCol returns the 1-based line and column (in characters) of offset.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte("\n"))
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[lineStart:])
}
