package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Duplicate keys. JSON leaves a key given twice in one object undefined,
// and readers differ: encoding/json keeps the last value, others the first.
// A message whose "method", "id" or params say one thing to a proxy in
// front of plughost and another to plughost (or to the server behind it)
// must not be served, so parseMessage refuses any object, at any depth,
// with a key twice. encoding/json also matches struct fields regardless of
// case, so an envelope member spelt "Method" would be read as "method":
// those are refused too.

// envelopeNames are the JSON-RPC members of a message, whose case variants
// at the top level are refused.
var envelopeNames = [][]byte{[]byte("jsonrpc"), []byte("id"), []byte("method"), []byte("params"), []byte("result"), []byte("error")}

// wideAt is how many keys one object may have before they are no longer
// compared one by one as they come (quadratic) but through a hash set once
// the object ends (linear).
const wideAt = 16

// keyProblem is a key a message must not have, and where it is.
type keyProblem struct {
	key  string // as decoded
	path string // JSON Pointer of the object holding it ("" for the top level)
	like string // the envelope member it is a case variant of; "" for a duplicate
}

func (p keyProblem) message() string {
	if p.like != "" {
		return fmt.Sprintf("invalid request: %q is %q in another case; JSON-RPC member names are case-sensitive: write %q, once", p.key, p.like, p.like)
	}
	at := p.path
	if at == "" {
		at = "/"
	}
	return fmt.Sprintf("invalid request: duplicate key %q at %s; a key may appear only once in an object "+
		"(readers disagree on which value counts)", p.key, at)
}

// keySpan locates a key: in the message, or — a key with escapes, which
// is compared decoded — in the scan's arena. Spans hold no pointers, so
// keeping and sorting them costs the garbage collector nothing.
type keySpan struct {
	start, end uint64 // in the arena when the top bit of start is set
}

// inArena marks a span of the arena.
const inArena = 1 << 63

// keyFrame is one open object or array of the scan.
type keyFrame struct {
	array bool
	keys0 int     // where the object's keys start in the scan's key stack
	key   keySpan // the object's latest key (where a child sits)
	index int     // the array's current element
}

// keyScan is what one scan keeps beside its stacks of open containers and
// their keys (which scanKeys holds itself, so they stay on its stack): the
// message, the decoded keys, and the hash set of wide objects.
type keyScan struct {
	b, arena []byte
	seed     maphash.Seed // of the hashes, once a wide object needs them
	table    []keySlot    // a wide object's key set (reused)
}

// keySlot is one entry of a wide object's key set: a key's hash (0: free)
// and its index.
type keySlot struct {
	hash, key uint32
}

// findDuplicateKey reports the first key that appears twice in one object
// of b, which must be valid JSON. Keys are compared as decoded ("\u0061"
// is "a").
func findDuplicateKey(b []byte) (keyProblem, bool) { return scanKeys(b, nil) }

// scanKeys walks valid JSON b once, without decoding values, and reports
// a duplicate key, or — with envelope — a top-level key that is an
// envelope member in another case. An object's keys are compared one by
// one while it has few, and through a hash set when it ends if it has
// many. It allocates only for deep or wide messages, escaped keys and the
// report.
func scanKeys(b []byte, envelope [][]byte) (keyProblem, bool) {
	var frameBuf [16]keyFrame
	var keyBuf [64]keySpan
	frames, keys := frameBuf[:0], keyBuf[:0]
	s := keyScan{b: b}
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '"':
			end := stringEnd(b, i)
			if n := len(frames); n > 0 && !frames[n-1].array && followedByColon(b, end) {
				k := s.span(i, end)
				f := &frames[n-1]
				if own := keys[f.keys0:]; len(own) < wideAt && s.contains(own, k) {
					return s.problem(frames, k), true
				}
				if n == 1 {
					if like := caseVariant(s.bytes(k), envelope); like != "" {
						return keyProblem{key: string(s.bytes(k)), like: like}, true
					}
				}
				f.key = k
				keys = append(keys, k)
			}
			i = end
		case '{', '[':
			frames = append(frames, keyFrame{array: c == '[', keys0: len(keys)})
			i++
		case '}', ']':
			n := len(frames)
			if n == 0 {
				i++
				continue
			}
			if own := keys[frames[n-1].keys0:]; len(own) > wideAt {
				if k, dup := s.wideDuplicate(own); dup {
					return s.problem(frames, k), true
				}
			}
			keys, frames = keys[:frames[n-1].keys0], frames[:n-1]
			i++
		case ',':
			if n := len(frames); n > 0 && frames[n-1].array {
				frames[n-1].index++
			}
			i++
		default:
			i++
		}
	}
	return keyProblem{}, false
}

// wideDuplicate finds a key keys holds twice through an open-addressing
// set of their hashes (seeded at random, so a sender cannot aim for
// collisions); keys with equal hashes are compared. Linear in the keys,
// and the set holds no pointers.
func (s *keyScan) wideDuplicate(keys []keySpan) (keySpan, bool) {
	if s.table == nil {
		s.seed = maphash.MakeSeed()
	}
	size := 1 << bits.Len(uint(2*len(keys)))
	s.table = slices.Grow(s.table[:0], size)[:size]
	clear(s.table)
	mask := size - 1
	for i, k := range keys {
		key := s.bytes(k)
		h := uint32(maphash.Bytes(s.seed, key)) | 1 // 0 marks a free slot
		for j := int(h) & mask; ; j = (j + 1) & mask {
			e := &s.table[j]
			if e.hash == 0 {
				*e = keySlot{hash: h, key: uint32(i)}
				break
			}
			if e.hash == h && bytes.Equal(s.bytes(keys[e.key]), key) {
				return k, true
			}
		}
	}
	return keySpan{}, false
}

// span is the key quoted in b[start:end]: its bytes as they are, unless it
// has an escape or bytes that are not UTF-8, which decode to something
// else (then decoded into the arena).
func (s *keyScan) span(start, end int) keySpan {
	raw := s.b[start+1 : end-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return keySpan{start: uint64(start + 1), end: uint64(end - 1)}
	}
	var v string
	if json.Unmarshal(s.b[start:end], &v) != nil {
		return keySpan{start: uint64(start + 1), end: uint64(end - 1)}
	}
	k := keySpan{start: uint64(len(s.arena)) | inArena, end: uint64(len(s.arena) + len(v))}
	s.arena = append(s.arena, v...)
	return k
}

// bytes is the key k.
func (s *keyScan) bytes(k keySpan) []byte {
	if k.start&inArena != 0 {
		return s.arena[k.start&^inArena : k.end]
	}
	return s.b[k.start:k.end]
}

// contains reports whether keys holds k.
func (s *keyScan) contains(keys []keySpan, k keySpan) bool {
	want := s.bytes(k)
	for _, o := range keys {
		if bytes.Equal(s.bytes(o), want) {
			return true
		}
	}
	return false
}

// problem reports k twice in the innermost of frames.
func (s *keyScan) problem(frames []keyFrame, k keySpan) keyProblem {
	return keyProblem{key: string(s.bytes(k)), path: s.pointer(frames)}
}

// pointer is the JSON Pointer (RFC 6901) of the innermost of frames.
func (s *keyScan) pointer(frames []keyFrame) string {
	var b strings.Builder
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for _, f := range frames[:len(frames)-1] {
		b.WriteByte('/')
		if f.array {
			b.WriteString(strconv.Itoa(f.index))
			continue
		}
		b.WriteString(esc.Replace(string(s.bytes(f.key))))
	}
	return b.String()
}

// stringEnd returns the index just past the closing quote of the JSON
// string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		backslashes := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// followedByColon reports whether the next non-space byte from i is ':',
// which makes the string before it a key.
func followedByColon(b []byte, i int) bool {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// caseVariant returns the envelope member key is in another case, or "".
func caseVariant(key []byte, envelope [][]byte) string {
	for _, name := range envelope {
		if len(key) == len(name) && !bytes.Equal(key, name) && bytes.EqualFold(key, name) {
			return string(name)
		}
	}
	return ""
}
