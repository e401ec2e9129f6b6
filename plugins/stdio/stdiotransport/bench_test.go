//go:build linux

package stdiotransport

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// BenchmarkRoundTrip measures one Send and the matching Recv through `cat`,
// the floor of the stdio relay (the design's "direct pipe" row).
func BenchmarkRoundTrip(b *testing.B) {
	tr := newTestTransport(io.Discard)
	raw, _ := json.Marshal(Config{Command: "cat"})
	conn, err := tr.Open(context.Background(), request(string(raw)))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	msg := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
		strings.Repeat("x", 120) + `"}}}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if err := conn.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Recv(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
