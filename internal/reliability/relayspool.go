//go:build linux

package main

import (
	"context"
	"fmt"

	"github.com/plughost/plughost/internal/proctree"
)

// relayedBigResult: a result over max_message_mb answered by a remote
// server through the http plugin is spooled by the plugin while it reads
// the answer, as on the direct pipes: a bounded view naming the file, which
// holds the whole text, no restart, and the gateway and its plugin together
// grow by at most the message limit (read before spooling starts) + 16 MB.
// The full profile sends 100 MB under the default 64 MiB limit; the short
// one 12 MB under a 4 MiB limit.
func (s *suite) relayedBigResult() error {
	chars, limitMB := 12_000_000, 4
	if s.full {
		chars, limitMB = 100_000_000, 64
	}
	url, stopRemote, err := s.startRemote()
	if err != nil {
		return err
	}
	defer stopRemote()
	entry := map[string]any{"enabled": true, "type": "http", "url": url, "max_message_mb": limitMB}
	sv, c, done, err := s.startBig("relayedbig", entry)
	if err != nil {
		return err
	}
	defer done()
	base := treeRSS(sv.pid())
	stop := peakOf(func() int64 { return treeRSS(sv.pid()) })
	o := c.call(context.Background(), "mcp_big_big", map[string]any{"chars": chars})
	peak := stop()
	path, size := spooledFile(o.text)
	views, err := sv.servers(context.Background())
	if err != nil {
		return err
	}
	growth := float64(peak-base) / float64(chars)
	s.check("relayed-result", fmt.Sprintf("%d MB result over the http relay (over max_message_mb %d)", chars/1_000_000, limitMB),
		fmt.Sprintf("spooled by the plugin while read: a bounded view naming the file, which holds all of it; no restart; gateway + plugin RSS growth ≤ %d MiB + 16 MB", limitMB),
		fmt.Sprintf("view %d bytes%s; file %s (%d bytes); restarts %d; gateway + plugin RSS %s before, peak %s (growth %.2f×)", len(o.text), ifNotEmpty(", error ", o.failure()),
			path, size, views["big"].Restarts, mb(base), mb(peak), growth),
		o.failure() == "" && len(o.text) < 1<<20 && size == int64(chars) && views["big"].Restarts == 0 && peak-base <= int64(limitMB)<<20+16e6)
	return nil
}

// treeRSS is the resident memory of pid and every process under it (the
// gateway and its plugins; a stdio server's too).
func treeRSS(pid int) int64 {
	total := proctree.RSS(pid)
	for _, p := range proctree.Descendants(pid) {
		if r := proctree.RSS(p.PID); r > 0 {
			total += r
		}
	}
	return total
}
