//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/plughost/plughost/internal/listenurl"
	"github.com/plughost/plughost/internal/proctree"
)

// orphans stops `plughost serve` with SIGTERM and with SIGKILL and checks
// that no process it started — plugins, servers, a server's own child —
// survives it.
func (s *suite) orphans() error {
	url, stopRemote, err := s.startRemote()
	if err != nil {
		return err
	}
	defer stopRemote()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		signame := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL"}[sig]
		name := "orphans-" + strings.ToLower(signame)
		sv, err := s.startServe(name, serveOptions{servers: map[string]any{
			"parent": s.stdio("-spawn-grandchild"),
			"plain":  s.stdio(),
			"remote": map[string]any{"enabled": true, "type": "http", "url": url},
		}})
		if err != nil {
			return err
		}
		if _, err := sv.waitServers(60*time.Second, "servers connected", connected("parent", "plain", "remote")); err != nil {
			return err
		}
		procs := proctree.Descendants(sv.pid())
		var names []string
		for _, p := range procs {
			names = append(names, p.Name)
		}
		slices.Sort(names)
		_ = syscall.Kill(sv.pid(), sig)
		select {
		case <-sv.exited:
		case <-time.After(20 * time.Second):
		}
		deadline := time.Now().Add(5 * time.Second)
		for len(proctree.Alive(procs)) > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		alive := proctree.Alive(procs)
		proctree.Kill(alive)
		s.check("orphans", "after "+signame+" of serve", "none of the processes it started survives (5 s grace)",
			fmt.Sprintf("started %d: %s; surviving: %v", len(procs), strings.Join(names, ", "), alive), len(alive) == 0 && len(procs) >= minOrphanProcs)
	}
	return nil
}

// minOrphanProcs is how many processes the orphans case's serve starts:
// the two stdio servers share one plugin process (direct pipes), the
// remote server has its own; parent also spawns a grandchild.
const minOrphanProcs = 5

// startRemote runs the test server over streamable HTTP on loopback and
// returns its URL and the function that stops it.
func (s *suite) startRemote() (url string, stop func(), err error) {
	return listenurl.Start(exec.Command(s.testserver, "-serve", "http"), 20*time.Second)
}
