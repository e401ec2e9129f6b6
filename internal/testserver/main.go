// Command testserver is a stdio MCP server for the host's integration tests.
// Its behaviour is chosen with flags:
//
//	-name NAME           server name reported in initialize (default "testserver")
//	-tools N             also offer N no-op tools tool_0 … tool_{N-1} (scale tests)
//	-hang-initialize     read stdin forever and never answer anything (timeout tests)
//	-spawn-grandchild    start a child that sleeps 1000 s (this binary with -sleep) in the
//	                     same process group at startup and report its pid as
//	                     "grandchild" from the pid tool (group-kill tests)
//	-sleep D             sleep D and exit, serving nothing (the grandchild)
//	-flood D             once the tools were listed, send notifications/tools/list_changed
//	                     every D (e.g. 1ms), and offer the flood_stats tool (flood.go)
//	-notify-flood        once the tools were listed, write list_changed, progress, log
//	                     and resources/updated notifications on stdout in a tight loop,
//	                     and offer the flood_stats tool (notifyflood.go)
//	-echo-env            write the whole environment to stderr at startup, one
//	                     KEY=value per line (secret masking tests)
//	-fail-start          exit with status 3 on reading the first request (after -echo-env)
//	-start-gate FILE     read nothing (so answer nothing, initialize included) until FILE
//	                     exists: a server slow to start, for as long as the test wants
//	                     (cold-start tests; with -fail-start it fails once FILE exists)
//	-junk-tool           also offer the junk tool, which writes a raw line on stdout
//	-garbage             answer every request line with a line that is not JSON
//	-huge-line MB        after the first request, write MB MiB on stdout without a newline
//	-vendor-result       also offer vendor_result, whose result has members mcp-go
//	                     does not model, at every level (vendor.go)
//	-faithful            also offer resources, prompts, completions, logging, progress,
//	                     sampling, elicitation, roots and a task tool (faithful.go)
//	-leak-env NAME       quote the environment variable NAME in JSON-RPC errors, a log
//	                     message and a result (leak.go; secret masking tests)
//	-escapes             write terminal escapes to stderr and into a tool's description,
//	                     result and error (escapes.go; terminal output tests)
//	-rug-pull D          also offer weather, and D after its tools were first listed
//	                     serve weather with a poisoned description and send
//	                     notifications/tools/list_changed (rugpull.go; tool trust tests)
//	-rug-pull-after FILE also offer weather: as first described when FILE does not
//	                     exist (and create it), poisoned when it does (a definition
//	                     changed across a restart)
//	-serve KIND          listen on -addr instead of stdio and print "listening <url>":
//	                     sse (mcp-go's legacy SSE server), sse-bridge (legacy SSE through
//	                     mcp-go's stdio server, which sends requests to the client;
//	                     ssebridge.go) or http (streamable HTTP)
//
// Tools: noop, echo, env, pid, sleep, add_tool, remove_tool, stderr, crash, big
// (see tools.go); junk with -junk-tool (misbehave.go). Diagnostics and markers go to stderr, one per line:
// "sleeping <id>" when a sleep starts, "cancelled <id>" when its request is
// cancelled (<id> is the JSON-RPC request id; the line also appears when the
// session ends, stdin closing, while the sleep runs), "crashing" before crash
// exits with status 3.
//
// The grandchild is deliberately left running when the server exits: killing
// it is the host's job, and tests check that it does.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// options are the command-line flags.
type options struct {
	name            string
	extraTools      int
	hangInitialize  bool
	spawnGrandchild bool
	sleep           time.Duration
	serve           string // "", "sse", "sse-bridge" or "http": listen on addr instead of stdio
	addr            string
	flood           time.Duration
	notifyFlood     bool
	echoEnv         bool
	failStart       bool
	startGate       string // wait until this file exists before reading stdin
	faithful        bool
	garbage         bool
	junkTool        bool
	hugeLineMB      int
	vendorResult    bool
	leakEnv         string
	escapes         bool
	rugPull         time.Duration
	rugPullAfter    string
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
	if opts.sleep > 0 {
		time.Sleep(opts.sleep)
		return
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
	fs.BoolVar(&o.spawnGrandchild, "spawn-grandchild", false, "start a child sleeping 1000 s in the same process group")
	fs.DurationVar(&o.sleep, "sleep", 0, "sleep this long and exit, serving nothing (what -spawn-grandchild starts)")
	fs.StringVar(&o.serve, "serve", "", "serve over HTTP instead of stdio: sse (legacy), sse-bridge (legacy, asking the client) or http (streamable)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "listen address with -serve")
	fs.DurationVar(&o.flood, "flood", 0, "send notifications/tools/list_changed this often once listed (0: never)")
	fs.BoolVar(&o.notifyFlood, "notify-flood", false, "write notifications of four kinds on stdout in a tight loop once listed")
	fs.BoolVar(&o.echoEnv, "echo-env", false, "write the environment to stderr at startup")
	fs.BoolVar(&o.failStart, "fail-start", false, "exit with status 3 on reading the first request")
	fs.StringVar(&o.startGate, "start-gate", "", "read nothing until this file exists (a server slow to start)")
	fs.BoolVar(&o.junkTool, "junk-tool", false, "also offer the junk tool (a raw line on stdout)")
	fs.BoolVar(&o.garbage, "garbage", false, "answer every request with a line that is not JSON")
	fs.IntVar(&o.hugeLineMB, "huge-line", 0, "after the first request, write this many MiB on stdout without a newline")
	fs.BoolVar(&o.vendorResult, "vendor-result", false, "also offer vendor_result (a result with members mcp-go does not model)")
	fs.BoolVar(&o.faithful, "faithful", false, "also offer resources, prompts, completions, logging, progress, sampling, elicitation, roots and tasks")
	fs.StringVar(&o.leakEnv, "leak-env", "", "quote this environment variable in JSON-RPC errors, a log message and a result")
	fs.BoolVar(&o.escapes, "escapes", false, "write terminal escapes to stderr and into a tool's description, result and error")
	fs.DurationVar(&o.rugPull, "rug-pull", 0, "offer weather and change its description this long after the first tools/list (0: never)")
	fs.StringVar(&o.rugPullAfter, "rug-pull-after", "", "offer weather, described as at first unless this file exists (created at the first start)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.serve != "" && o.serve != "sse" && o.serve != "sse-bridge" && o.serve != "http" {
		return o, errors.New("-serve must be sse, sse-bridge or http")
	}
	if o.hugeLineMB < 0 {
		return o, errors.New("-huge-line must not be negative")
	}
	if o.extraTools < 0 {
		return o, errors.New("-tools must not be negative")
	}
	if o.rugPull < 0 {
		return o, errors.New("-rug-pull must not be negative")
	}
	if o.rugPull > 0 && o.rugPullAfter != "" {
		return o, errors.New("-rug-pull and -rug-pull-after cannot be combined")
	}
	if o.flood < 0 {
		return o, errors.New("-flood must not be negative")
	}
	if o.notifyFlood && (o.flood > 0 || o.serve != "") {
		return o, errors.New("-notify-flood works on stdio alone and not with -flood")
	}
	return o, nil
}

// run serves MCP on in/out until in closes or ctx ends.
func run(ctx context.Context, o options, in io.Reader, out, stderr io.Writer) error {
	stderr = &lockedWriter{w: stderr}
	if o.echoEnv {
		for _, kv := range os.Environ() {
			fmt.Fprintln(stderr, kv)
		}
	}
	if o.escapes {
		fmt.Fprintln(stderr, "stderr "+Escapes)
	}
	if o.startGate != "" {
		if err := waitForFile(ctx, o.startGate); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "start gate open; serving")
	}
	if o.failStart {
		// Wait for the first request, so the client sees the exit as the
		// answer to it (with this stderr), not as a broken pipe.
		_, _ = bufio.NewReader(in).ReadString('\n')
		fmt.Fprintln(stderr, "failing at the first request as asked (-fail-start)")
		os.Exit(3)
	}
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
	if o.garbage {
		return serveGarbage(in, out)
	}
	if o.hugeLineMB > 0 {
		return serveHugeLine(in, out, o.hugeLineMB)
	}
	out = &syncWriter{w: out}
	f := &fixture{stderr: stderr, stdout: out, grandchild: grandchild}
	s, err := newServer(ctx, o, f)
	if err != nil {
		return err
	}
	if f.flood != nil || f.notifyFlood != nil {
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		if f.flood != nil {
			wg.Go(func() { f.flood.run(ctx, s) })
		} else {
			wg.Go(func() { f.notifyFlood.run(ctx) })
		}
		defer wg.Wait()
		defer cancel()
	}
	if o.serve != "" {
		return serveHTTP(o, s, out)
	}
	if answer := interceptions(o); answer != nil {
		in = interceptStdio(in, out, answer)
	}
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(stderr, "testserver: ", 0))
	// Tests run many concurrent sleeps; mcp-go's default of 5 workers would
	// queue them behind each other.
	server.WithWorkerPoolSize(100)(stdio)
	server.WithQueueSize(1000)(stdio)
	return stdio.Listen(ctx, in, out)
}

// gatePoll is how often -start-gate looks for its file.
const gatePoll = 10 * time.Millisecond

// waitForFile returns once path exists, or when ctx ends.
func waitForFile(ctx context.Context, path string) error {
	tick := time.NewTicker(gatePoll)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// spawnGrandchild starts a long sleep that shares our process group (no
// Setpgid), the way npx leaves node running under the server. Its stdio is
// the null device so it holds none of our pipes. It is this binary with
// -sleep, which runs on every system (Windows has no sleep command).
func spawnGrandchild() (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("spawn grandchild: %w", err)
	}
	cmd := exec.Command(self, "-sleep", "1000s")
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
