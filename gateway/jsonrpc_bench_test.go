package gateway

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseMessage is the cost of reading one incoming message, the
// first thing every request pays: a typical tools/call, one with a 1 MiB
// text argument, and one whose arguments hold 1,000 keys.
func BenchmarkParseMessage(b *testing.B) {
	var many strings.Builder
	for i := range 1000 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `"key_%d":%d`, i, i)
	}
	for _, c := range []struct{ name, msg string }{
		{"tools-call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{"text":"hello","n":3,"flags":{"a":true,"b":[1,2,{"c":null}]}},"_meta":{"progressToken":"p1"}}}`},
		{"1MiB-text", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{"text":"` + strings.Repeat("lorem ipsum ", 1<<20/12) + `"}}}`},
		{"1000-keys", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{` + many.String() + `}}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			msg := []byte(c.msg)
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := parseMessage(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanKeys is the duplicate-key scan alone, beside what decoding
// the same message costs, so its share of parseMessage shows through the
// noise of a shared machine.
func BenchmarkScanKeys(b *testing.B) {
	var many strings.Builder
	for i := range 1000 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `"key_%d":%d`, i, i)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_s_echo","arguments":{` + many.String() + `}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, dup := scanKeys(msg, envelopeNames); dup {
			b.Fatal("duplicate")
		}
	}
}
