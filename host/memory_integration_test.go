//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
)

// After a result of 8 MiB or more the host returns memory to the operating
// system only when Options.ReturnMemoryAfterLargeResults asks it to: a
// library must not force process-wide collections on its embedder.
func TestMemoryReturnFollowsTheOption(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprintf("ReturnMemoryAfterLargeResults=%v", on), func(t *testing.T) {
			h, err := newHostOpts(t, map[string]any{"enabled": true, "servers": map[string]any{"s": server()}},
				host.Options{ReturnMemoryAfterLargeResults: on})
			if err != nil {
				t.Fatal(err)
			}
			freed := make(chan struct{}, 8)
			host.SetFreeMemoryHook(h, func() { freed <- struct{}{} })
			h.Start(context.Background())
			t.Cleanup(func() { h.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := h.WaitSettled(ctx); err != nil {
				t.Fatal(err)
			}
			s := h.NewSession()
			if _, err := s.Call(ctx, "mcp_s_big", json.RawMessage(`{"chars": 1000}`)); err != nil {
				t.Fatal(err)
			}
			if n := host.MemoryReturnsAsked(h); n != 0 {
				t.Fatalf("a small result asked for %d memory returns; want none", n)
			}
			if _, err := s.Call(ctx, "mcp_s_big", json.RawMessage(fmt.Sprintf(`{"chars": %d}`, 9<<20))); err != nil {
				t.Fatal(err)
			}
			asked := host.MemoryReturnsAsked(h)
			if !on {
				if asked != 0 {
					t.Fatalf("with the option off a large result asked for %d memory returns; want none", asked)
				}
				h.Close() // waits for the host's goroutines: a return in flight would have run
				if len(freed) != 0 {
					t.Fatal("with the option off the host returned memory")
				}
				return
			}
			if asked != 1 {
				t.Fatalf("with the option on a large result asked for %d memory returns; want 1", asked)
			}
			select {
			case <-freed:
			case <-ctx.Done():
				t.Fatal("the memory return asked for never ran")
			}
		})
	}
}
