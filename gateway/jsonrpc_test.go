package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// A message with a key twice in one object — the envelope's, params', or
// any object inside them — is refused with -32600 naming the key and
// where it is, whichever value would have won; so is an envelope member
// that differs from a JSON-RPC one only in case, which encoding/json would
// read as that member. Keys that repeat in different objects are fine.
func TestDuplicateKeys(t *testing.T) {
	for _, c := range []struct {
		name, msg string
		want      string // "" accepted, else the refusal's message contains it
	}{
		{"distinct", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"name":"b","x":{"name":"c"}}}}`, ""},
		{"same key in sibling objects", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"k":1},{"k":2}],"b":{"k":3}}}`, ""},
		{"keys that are prefixes", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"ab":2,"abc":3,"b":{"a":1}}}`, ""},
		{"case differs inside params", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":1,"Name":2}}`, ""},
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{}}`, `duplicate key "method" at /`},
		{"id twice", `{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`, `duplicate key "id" at /`},
		{"jsonrpc twice", `{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"ping"}`, `duplicate key "jsonrpc" at /`},
		{"params twice", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1},"params":{"a":2}}`, `duplicate key "params" at /`},
		{"within params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`, `duplicate key "name" at /params`},
		{"deep in the arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"list":[0,{"x":1,"y":{"z":1,"z":2}}]}}}`,
			`duplicate key "z" at /params/arguments/list/1/y`},
		{"escaped spelling of the same key", `{"jsonrpc":"2.0","id":1,"method":"tools/list","\u006dethod":"tools/call"}`, `duplicate key "method" at /`},
		{"escaped key in a pointer", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a/b~c":{"k":1,"k":2}}}`, `duplicate key "k" at /params/a~1b~0c`},
		{"method in another case", `{"jsonrpc":"2.0","id":1,"method":"tools/list","Method":"tools/call"}`, `"Method" is "method" in another case`},
		{"ID in capitals", `{"jsonrpc":"2.0","ID":1,"method":"ping"}`, `"ID" is "id" in another case`},
		{"duplicate in a response", `{"jsonrpc":"2.0","id":"plughost-1","result":{"a":1,"a":2}}`, `duplicate key "a" at /result`},
		{"duplicate in an error's data", `{"jsonrpc":"2.0","id":"plughost-1","error":{"code":1,"message":"x","code":2}}`, `duplicate key "code" at /error`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parseMessage([]byte(c.msg))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err.Message)
			case c.want != "" && err == nil:
				t.Errorf("accepted, want a refusal with %q", c.want)
			case c.want != "" && (err.Code != codeInvalidRequest || !strings.Contains(err.Message, c.want)):
				t.Errorf("refused with %d %q, want -32600 with %q", err.Code, err.Message, c.want)
			}
		})
	}
}

// Many keys in one object cost a set, not a quadratic scan, and are still
// checked exactly.
func TestDuplicateKeysManyKeys(t *testing.T) {
	key := func(i int) string { return "k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i) }
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"m","params":{`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + key(i) + `":0`)
	}
	ok := b.String() + `}}`
	if _, _, err := parseMessage([]byte(ok)); err != nil {
		t.Fatalf("5,000 distinct keys refused: %v", err.Message)
	}
	dup := b.String() + `,"` + key(4001) + `":1}}`
	if _, _, err := parseMessage([]byte(dup)); err == nil || !strings.Contains(err.Message, `duplicate key "`+key(4001)+`" at /params`) {
		t.Fatalf("a duplicate among 5,000 keys: %v", err)
	}
}

// FuzzDuplicateKeys checks the duplicate-key scan against a reference
// that walks the message with encoding/json's tokenizer.
func FuzzDuplicateKeys(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`,
		`{"a":{"b":[{"c":1},{"c":2}],"b":3}}`,
		`{"\u0061":1,"a":2}`,
		`{"a\"b":1,"a\\"b":2}`,
		`[{"x":1,"x":2}]`,
		`{"k":"va\"lue","k2":"\\","k":0}`,
		`{}`, `[]`, `"s"`, `1`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"c":19}`,
		`{"x":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":{"a":1,"a":2}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		want := referenceDuplicate(b)
		_, got := findDuplicateKey(b)
		if got != want {
			t.Errorf("%q: scan says duplicate %v, reference %v", b, got, want)
		}
	})
}

// referenceDuplicate reports whether valid JSON b has a key twice in one
// object (keys compared after unescaping), walking it token by token.
func referenceDuplicate(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next string is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{object: true, keys: map[string]bool{}, key: true})
			case '[':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.object && top.key {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.key = false
				continue
			}
			if top != nil && top.object {
				top.key = true
			}
		default:
			if top != nil && top.object {
				top.key = true
			}
		}
	}
}
