// Command testserver is a stdio MCP server for the host's integration tests.
// Its behaviour is chosen with flags:
//
//	-name NAME           server name reported in initialize (default "testserver")
//	-tools N             also offer N no-op tools tool_0 … tool_{N-1} (scale tests)
//	-hang-initialize     read stdin forever and never answer anything (timeout tests)
//	-spawn-grandchild    start `sleep 1000` in the same process group at startup and
//	                     report its pid as "grandchild" from the pid tool (group-kill tests)
//
// Tools: noop, echo, env, pid, sleep, add_tool, remove_tool, stderr, crash, big
// (see tools.go). Diagnostics and markers go to stderr, one per line:
// "sleeping <id>" when a sleep starts, "cancelled <id>" when its request is
// cancelled (<id> is the JSON-RPC request id; the line also appears when the
// session ends, stdin closing, while the sleep runs), "crashing" before crash
// exits with status 3.
//
// The grandchild is deliberately left running when the server exits: killing
// it is the host's job, and tests check that it does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// options are the command-line flags.
type options struct {
	name            string
	extraTools      int
	hangInitialize  bool
	spawnGrandchild bool
	serve           string // "", "sse" or "http": listen on addr instead of stdio
	addr            string
}

func main() {
	opts, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), opts, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("testserver", flag.ContinueOnError)
	fs.StringVar(&o.name, "name", "testserver", "server name reported in initialize")
	fs.IntVar(&o.extraTools, "tools", 0, "number of extra no-op tools tool_0..tool_{N-1}")
	fs.BoolVar(&o.hangInitialize, "hang-initialize", false, "read stdin but never answer")
	fs.BoolVar(&o.spawnGrandchild, "spawn-grandchild", false, "start `sleep 1000` in the same process group")
	fs.StringVar(&o.serve, "serve", "", "serve over HTTP instead of stdio: sse (legacy) or http (streamable)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "listen address with -serve")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.serve != "" && o.serve != "sse" && o.serve != "http" {
		return o, errors.New("-serve must be sse or http")
	}
	if o.extraTools < 0 {
		return o, errors.New("-tools must not be negative")
	}
	return o, nil
}

// run serves MCP on in/out until in closes or ctx ends.
func run(ctx context.Context, o options, in io.Reader, out, stderr io.Writer) error {
	stderr = &lockedWriter{w: stderr}
	grandchild := 0
	if o.spawnGrandchild {
		pid, err := spawnGrandchild()
		if err != nil {
			return err
		}
		grandchild = pid
	}
	if o.hangInitialize {
		_, err := io.Copy(io.Discard, in)
		return err
	}
	s := newServer(o, &fixture{stderr: stderr, grandchild: grandchild})
	if o.serve != "" {
		return serveHTTP(o, s, out)
	}
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(stderr, "testserver: ", 0))
	// Tests run many concurrent sleeps; mcp-go's default of 5 workers would
	// queue them behind each other.
	server.WithWorkerPoolSize(100)(stdio)
	server.WithQueueSize(1000)(stdio)
	return stdio.Listen(ctx, in, out)
}

// spawnGrandchild starts a long sleep that shares our process group (no
// Setpgid), the way npx leaves node running under the server. Its stdio is
// /dev/null so it holds none of our pipes.
func spawnGrandchild() (int, error) {
	cmd := exec.Command("sleep", "1000")
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("spawn grandchild: %w", err)
	}
	go cmd.Wait() // reap it if it dies while we run
	return cmd.Process.Pid, nil
}

// lockedWriter serialises writes so marker lines from concurrent handlers
// never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
