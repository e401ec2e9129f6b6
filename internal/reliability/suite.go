//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// suite is one run: where the binaries are, where it writes, and what it
// found so far.
type suite struct {
	bin        string // holds plughost and plugins/
	testserver string // the test MCP server binary
	work       string // every file the suite writes lives under it
	full       bool   // the full profile (sizes and durations of make reliability)
	out        io.Writer

	mu      sync.Mutex
	results []result
	serves  []*serve // every serve started, stopped at the end
}

// result is one checked case.
type result struct {
	group, name        string
	expected, observed string
	ok                 bool
}

// testCase is one group of checks.
type testCase struct {
	name string
	run  func(*suite) error
}

// cases are every case group in the order they run; the canary scan runs
// last, over everything the others wrote.
func cases() []testCase {
	return []testCase{
		{"fault", (*suite).faultRun},
		{"misbehaving", (*suite).misbehaving},
		{"relayed-result", (*suite).relayedBigResult},
		{"http-abuse", (*suite).httpAbuse},
		{"browser-door", (*suite).browserDoor},
		{"orphans", (*suite).orphans},
		{"leaks", (*suite).leaks},
		{"reload-typo", (*suite).reloadTypo},
		{"notification-flood", (*suite).notificationFlood},
		{"large-config", (*suite).largeConfig},
		{"terminal-escapes", (*suite).terminalEscapes},
		{"secret-canary", (*suite).secretCanary},
	}
}

func newSuite(bin, testserver, work string, full bool, out io.Writer) *suite {
	return &suite{bin: bin, testserver: testserver, work: work, full: full, out: out}
}

// run runs the cases whose name matches filter (nil: all) and returns the
// number of misses.
func (s *suite) run(filter *regexp.Regexp) int {
	profile := "short"
	if s.full {
		profile = "full"
	}
	fmt.Fprintf(s.out, "plughost reliability suite (%s profile), binaries in %s\n", profile, s.bin)
	start := time.Now()
	for _, c := range cases() {
		if filter != nil && !filter.MatchString(c.name) {
			continue
		}
		fmt.Fprintf(s.out, "\n== %s\n", c.name)
		t := time.Now()
		if err := c.run(s); err != nil {
			s.check(c.name, "setup", "the case runs", "could not run: "+err.Error(), false)
		}
		s.stopServes()
		fmt.Fprintf(s.out, "   (%s in %.1fs)\n", c.name, time.Since(t).Seconds())
	}
	misses := 0
	for _, r := range s.results {
		if !r.ok {
			misses++
		}
	}
	fmt.Fprintf(s.out, "\n%d checks, %d missed, %.0fs\n", len(s.results), misses, time.Since(start).Seconds())
	for _, r := range s.results {
		if !r.ok {
			fmt.Fprintf(s.out, "MISS %s / %s: expected %s; observed %s\n", r.group, r.name, r.expected, r.observed)
		}
	}
	return misses
}

// check records and prints one check. Cases may check from several
// goroutines (the misbehaving case runs the flood beside its own checks),
// so recording and printing both happen under the suite's lock.
func (s *suite) check(group, name, expected, observed string, ok bool) {
	mark := "ok  "
	if !ok {
		mark = "MISS"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = append(s.results, result{group, name, expected, observed, ok})
	fmt.Fprintf(s.out, "%s %-34s expected: %s\n     %-34s observed: %s\n", mark, name, expected, "", oneLine(observed, 400))
}

// results returns the checks recorded so far.
func (s *suite) Results() []result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]result(nil), s.results...)
}

// stopServes stops every serve still running (SIGTERM, then SIGKILL).
func (s *suite) stopServes() {
	s.mu.Lock()
	serves := s.serves
	s.serves = nil
	s.mu.Unlock()
	for _, sv := range serves {
		sv.stop()
	}
}

// oneLine shortens s to n bytes on one line, for the report.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// buildTestserver compiles internal/testserver to path.
func buildTestserver(path string) error {
	cmd := exec.Command("go", "build", "-o", path, "./internal/testserver")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./internal/testserver (run from the module root): %w", err)
	}
	return nil
}

// mb formats bytes as MB with one decimal.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
