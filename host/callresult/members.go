package callresult

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/lib/rawjson"
)

// rawMembers is what a tools/call result held at its top level beyond the
// members plughost reads and may rewrite (content, structuredContent): its
// _meta and isError as sent, and every member mcp.CallToolResult has no
// field for (a newer spec's, a vendor's "x-trace", …), each as the raw JSON
// the server sent, in its order. The zero rawMembers holds nothing. A
// Result keeps it; encode writes a result with it.
type rawMembers struct {
	members []member
	// meta is the decoded _meta the raw one stands for: while a result's
	// Meta is still this pointer, the raw _meta is written.
	meta *mcp.Meta
	// isError is the isError the raw one decoded to.
	isError bool
}

// member is one top-level member of a result, raw.
type member struct {
	key   string
	value json.RawMessage
}

// empty reports whether x holds nothing.
func (x rawMembers) empty() bool { return len(x.members) == 0 }

// keys returns the names of the members x holds, in the server's order.
func (x rawMembers) keys() []string {
	keys := make([]string, len(x.members))
	for i, m := range x.members {
		keys[i] = m.key
	}
	return keys
}

// encode returns res as JSON with x's members: those mcp.CallToolResult
// has no field for, always; the raw _meta while res.Meta is the one Decode
// made of it, and the raw isError while res.IsError is what it said (so a
// server's explicit "isError": false stays, and shaping may still mark a
// result as an error). Content items that are rawItems encode as the
// server's JSON (rawItem.MarshalJSON).
func encode(res *mcp.CallToolResult, x rawMembers) (json.RawMessage, error) {
	if res == nil {
		return nil, fmt.Errorf("encode a tools/call result: no result")
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode a tools/call result: %w", err)
	}
	if x.empty() {
		return b, nil
	}
	add := make([]member, 0, len(x.members))
	replaced := map[string]bool{}
	for _, m := range x.members {
		switch {
		case m.key == "_meta" && res.Meta != x.meta:
			continue // not the server's _meta any more
		case m.key == "isError" && res.IsError != x.isError:
			continue
		}
		add = append(add, m)
		replaced[m.key] = true
	}
	return merge(b, add, replaced), nil
}

// merge writes the object obj without the members named in drop, then add.
func merge(obj []byte, add []member, drop map[string]bool) json.RawMessage {
	var out bytes.Buffer
	out.Grow(len(obj) + 64*len(add))
	out.WriteByte('{')
	n := 0
	sep := func() {
		if n > 0 {
			out.WriteByte(',')
		}
		n++
	}
	rawjson.ScanMembers(rawjson.View(obj), func(key string, s, e int) bool {
		if !drop[key] {
			sep()
			k, _ := json.Marshal(key) // a string always encodes
			out.Write(k)
			out.WriteByte(':')
			out.Write(obj[s:e])
		}
		return true
	})
	for _, m := range add {
		sep()
		k, _ := json.Marshal(m.key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(m.value)
	}
	out.WriteByte('}')
	return out.Bytes()
}
