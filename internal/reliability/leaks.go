//go:build linux

package main

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/plughost/plughost/internal/proctree"
)

// leaks checks that goroutines and file descriptors of serve return to
// their baseline after many sessions, calls and server restarts.
func (s *suite) leaks() error {
	sessions, restarts := 50, 3
	if s.full {
		sessions, restarts = 1000, 10
	}
	sv, err := s.startServe("leaks", serveOptions{servers: map[string]any{"steady": s.stdio(), "victim": s.stdio()}})
	if err != nil {
		return err
	}
	if _, err := sv.waitServers(60*time.Second, "servers connected", connected("steady", "victim")); err != nil {
		return err
	}
	ctx := context.Background()
	// Warm up every path once, so lazily started goroutines count in the baseline.
	if err := s.sessionsAndCalls(sv, 5); err != nil {
		return err
	}
	baseG, baseFD, err := s.settledCounts(sv)
	if err != nil {
		return err
	}
	if err := s.sessionsAndCalls(sv, sessions); err != nil {
		return err
	}
	for i := range restarts {
		v, err := sv.servers(ctx)
		if err != nil {
			return err
		}
		before := v["victim"].Restarts
		if err := syscall.Kill(v["victim"].ServerPID, syscall.SIGKILL); err != nil {
			return fmt.Errorf("restart %d: %w", i, err)
		}
		if _, err := sv.waitServers(30*time.Second, "victim restarted", func(v map[string]serverListing) bool {
			return v["victim"].State == "connected" && v["victim"].Restarts > before
		}); err != nil {
			return err
		}
	}
	g, fd, err := s.settledCounts(sv)
	if err != nil {
		return err
	}
	s.check("leaks", "goroutines", fmt.Sprintf("back to the baseline ±10 after %d sessions × 5 calls and %d server restarts", sessions, restarts),
		fmt.Sprintf("%d before, %d after", baseG, g), g <= baseG+10)
	s.check("leaks", "file descriptors", "back to the baseline ±5", fmt.Sprintf("%d before, %d after", baseFD, fd), fd <= baseFD+5 && fd > 0)
	return nil
}

// sessionsAndCalls opens n sessions, 4 at a time, makes 5 calls in each
// and ends them.
func (s *suite) sessionsAndCalls(sv *serve, n int) error {
	ctx := context.Background()
	errs := make(chan error, n)
	sem := make(chan struct{}, 4)
	for i := range n {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			c := sv.newClient()
			defer c.close(ctx)
			if err := c.initialize(ctx); err != nil {
				errs <- err
				return
			}
			for j := range 5 {
				name := "mcp_steady_echo"
				if j%2 == 1 {
					name = "mcp_victim_echo"
				}
				if o := c.call(ctx, name, map[string]any{"text": fmt.Sprint(i, j)}); o.err != nil {
					errs <- o.err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// settledCounts waits for idle connections to close and returns serve's
// goroutine count (go_goroutines, excluding the scrape itself) and open
// descriptors, the lowest of a few readings.
func (s *suite) settledCounts(sv *serve) (goroutines, fds int, err error) {
	goroutines, fds = 1<<30, 1<<30
	for range 5 {
		time.Sleep(400 * time.Millisecond)
		g, err := sv.metric(context.Background(), "go_goroutines")
		if err != nil {
			return 0, 0, err
		}
		goroutines = min(goroutines, int(g))
		fds = min(fds, proctree.FDs(sv.pid()))
	}
	return goroutines, fds, nil
}
