package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// node is a JSON value located in the document: data[start:end] is its text.
type node struct {
	start, end int
	kind       byte     // '{', '[', '"', or 'v' for numbers and literals
	members    []member // for objects, in document order
}

// member is one "key": value pair of an object.
type member struct {
	key      string
	keyStart int // offset of the key's opening quote
	keyEnd   int // offset just after the key's closing quote
	val      *node
}

// bom is the UTF-8 byte order mark, which some editors write.
const bom = "\xef\xbb\xbf"

// ErrInvalid is returned (wrapped) for a document that is not valid JSON.
var ErrInvalid = errors.New("not valid JSON")

// parse locates every value of a valid JSON document. The document must be
// one JSON value; a leading byte order mark is skipped.
func parse(data []byte) (*node, error) {
	off := 0
	if len(data) >= len(bom) && string(data[:len(bom)]) == bom {
		off = len(bom)
	}
	if !json.Valid(data[off:]) {
		return nil, ErrInvalid
	}
	s := scanner{data: data, pos: off}
	s.space()
	return s.value(), nil
}

// scanner walks a document already known to be valid JSON.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value() *node {
	n := &node{start: s.pos, kind: s.data[s.pos]}
	switch n.kind {
	case '{':
		s.object(n)
	case '[':
		s.array()
	case '"':
		s.str()
	default:
		n.kind = 'v'
		s.literal()
	}
	n.end = s.pos
	return n
}

func (s *scanner) object(n *node) {
	s.pos++ // {
	for {
		s.space()
		if s.data[s.pos] == '}' {
			s.pos++
			return
		}
		if s.data[s.pos] == ',' {
			s.pos++
			s.space()
		}
		m := member{keyStart: s.pos}
		s.str()
		m.keyEnd = s.pos
		m.key = decodeKey(s.data[m.keyStart:m.keyEnd])
		s.space()
		s.pos++ // :
		s.space()
		m.val = s.value()
		n.members = append(n.members, m)
	}
}

func (s *scanner) array() {
	s.pos++ // [
	for {
		s.space()
		switch s.data[s.pos] {
		case ']':
			s.pos++
			return
		case ',':
			s.pos++
			s.space()
		}
		if s.data[s.pos] != ']' {
			s.value()
		}
	}
}

func (s *scanner) str() {
	s.pos++ // opening quote
	for s.data[s.pos] != '"' {
		if s.data[s.pos] == '\\' {
			s.pos++
		}
		s.pos++
	}
	s.pos++
}

func (s *scanner) literal() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return
		}
		s.pos++
	}
}

// find returns the member of obj named key (the last one if repeated).
func (n *node) find(key string) (member, int, bool) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i], i, true
		}
	}
	return member{}, -1, false
}

// walk follows keys from the root as far as they lead through objects. It
// returns the deepest node reached and how many keys were consumed.
func walk(root *node, keys []string) (*node, int, error) {
	n := root
	for i, k := range keys {
		if n.kind != '{' {
			return nil, i, &NotObjectError{Keys: keys[:i]}
		}
		m, _, ok := n.find(k)
		if !ok {
			return n, i, nil
		}
		n = m.val
	}
	return n, len(keys), nil
}

// NotObjectError reports that a value on the way to the edited key is not a
// JSON object, so no key can be set below it.
type NotObjectError struct {
	// Keys lead to the value that is not an object (empty: the document).
	Keys []string
}

func (e *NotObjectError) Error() string {
	if len(e.Keys) == 0 {
		return "the document is not a JSON object"
	}
	return fmt.Sprintf("the value at %q is not a JSON object", e.Keys)
}

// decodeKey decodes a quoted key of a valid document; keys without escapes
// (nearly all) are sliced, not decoded.
func decodeKey(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var k string
	_ = json.Unmarshal(quoted, &k) // a valid document's key always decodes
	return k
}
