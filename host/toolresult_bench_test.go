//go:build unix

package host_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plughost/plughost/host"
)

// BenchmarkToolResult decodes a tools/call result as a server sends it and
// writes it back for a client (DecodeToolResult, then JSON): the host's own
// cost per result on the call path, shaping aside. Each round decodes a
// fresh copy of the message, since decoding takes ownership of it.
func BenchmarkToolResult(b *testing.B) {
	text := func(n int) string {
		lit, _ := json.Marshal(strings.Repeat("line of text \"quoted\"\n", n/22+1)[:n])
		return string(lit)
	}
	for _, tc := range []struct{ name, raw string }{
		{"small", `{"content":[{"type":"text","text":"hello"}]}`},
		{"mixed-vendor", `{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"x-note":"n"},"_meta":{"id":12345678901234567890}},` +
			`{"type":"image","data":"aGk=","mimeType":"image/png","x-alt":"a cat"},{"type":"resource_link","uri":"file:///a","name":"a"},` +
			`{"type":"resource","resource":{"uri":"file:///b","blob":"aGk=","x-size":2},"x-origin":"disk"}],` +
			`"structuredContent":{"n":1},"_meta":{"trace":{"id":12345678901234567890}},"x-trace":{"spans":[1,2]},"isError":false}`},
		{"1MB-text", `{"content":[{"type":"text","text":` + text(1<<20) + `}]}`},
		{"1MB-text-vendor", `{"content":[{"type":"text","x-lang":"en","text":` + text(1<<20) + `}],"x-trace":"t"}`},
		{"10MB-text", `{"content":[{"type":"text","text":` + text(10<<20) + `}]}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			src := []byte(tc.raw)
			buf := make([]byte, len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, src)
				res, err := host.DecodeToolResult(buf)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := res.JSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
