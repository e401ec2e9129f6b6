package secret

import (
	"bytes"
	"encoding/json"
)

// JSON returns raw, a JSON value, with Mask applied inside every string in
// it — object keys and values, at any depth — and everything else kept
// byte for byte: a string that holds nothing to mask keeps its original
// escapes, and raw itself is returned when nothing changed. A masked
// string is written back as a JSON string, so the result is JSON whenever
// raw was (an unterminated string, which JSON never has, is masked from
// its quote on as text). For what a server sends that may quote a secret anywhere: the
// data of a JSON-RPC error, a log message.
func (m *Masker) JSON(raw []byte) []byte {
	var out []byte // nil until a string changes
	done := 0      // raw[:done] is in out
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 { // not JSON: mask the rest as text
			out = append(append(out, raw[done:i]...), m.Mask(string(raw[i:]))...)
			done = len(raw)
			break
		}
		if masked, ok := m.maskLiteral(raw[i:end]); ok {
			out = append(append(out, raw[done:i]...), masked...)
			done = end
		}
		i = end - 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[done:]...)
}

// stringEnd returns the index just past the JSON string literal that starts
// at raw[start] (a '"'), or -1 when it is not terminated.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++ // the escaped character, whatever it is
		case '"':
			return i + 1
		}
	}
	return -1
}

// maskLiteral masks the string a JSON string literal holds; ok is false
// when nothing changed (or lit is no valid literal).
func (m *Masker) maskLiteral(lit []byte) ([]byte, bool) {
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return nil, false
	}
	masked := m.Mask(s)
	if masked == s {
		return nil, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & as the server wrote them
	if enc.Encode(masked) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), true
}
