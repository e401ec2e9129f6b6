//go:build linux

// Command reliability is plughost's reliability suite: it attacks the built
// binaries (bin/plughost, bin/plugins/*) with misbehaving MCP servers
// (internal/testserver), hostile HTTP clients, process faults and secret
// canaries, and prints for every case what was expected and what was
// observed. It exits 1 when any case misses.
//
//	go run ./internal/reliability [-bin bin] [-profile full|short] [-only REGEXP] [-keep]
//
// `make reliability` runs the full profile; `go test ./internal/reliability`
// (part of `make test`) runs the short one. docs/reliability.md lists the
// cases and the figures of a full run.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

func main() {
	bin := flag.String("bin", "bin", "directory holding plughost and plugins/mcp-transport-*")
	testserver := flag.String("testserver", "", "test server binary (default: go build ./internal/testserver into the work dir)")
	profile := flag.String("profile", "full", "full (every case at full size) or short (the cheap profile of make test)")
	only := flag.String("only", "", "run only the cases whose name matches this regular expression")
	keep := flag.Bool("keep", false, "keep the work directory (configs, logs, CLI output) for inspection")
	flag.Parse()
	if *profile != "full" && *profile != "short" {
		fail("-profile must be full or short")
	}
	var filter *regexp.Regexp
	if *only != "" {
		var err error
		if filter, err = regexp.Compile(*only); err != nil {
			fail("-only: " + err.Error())
		}
	}
	work, err := os.MkdirTemp("", "plughost-reliability-")
	if err != nil {
		fail(err.Error())
	}
	ts := *testserver
	if ts == "" {
		ts = filepath.Join(work, "testserver")
		if err := buildTestserver(ts); err != nil {
			fail(err.Error())
		}
	}
	abs, err := filepath.Abs(*bin)
	if err != nil {
		fail(err.Error())
	}
	s := newSuite(abs, ts, work, *profile == "full", os.Stdout)
	misses := s.run(filter)
	if *keep {
		fmt.Printf("work directory kept: %s\n", work)
	} else {
		os.RemoveAll(work)
	}
	if misses > 0 {
		os.Exit(1)
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "reliability:", msg)
	os.Exit(2)
}
