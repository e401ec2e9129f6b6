package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// MemoryOptions say what the large-result memory measurement runs: the demo
// server's generate_text tool (Options.Command and Args start the server)
// returning Chars characters, called Concurrency[i] times at once.
type MemoryOptions struct {
	Options
	// Plughost is the plughost executable, run as `plughost stdio` for the
	// gateway measurement; "" skips it.
	Plughost string
	// Chars is the size of each result (ASCII text, so also its bytes).
	Chars int
	// Concurrency lists the numbers of simultaneous calls measured.
	Concurrency []int
	// Settle is how long to wait after the calls before reading the memory
	// still held ("returned afterwards"); the GC is not forced.
	Settle time.Duration
}

// MemoryRun is the memory cost of one setup and concurrency.
type MemoryRun struct {
	// Setup names the path measured.
	Setup string `json:"setup"`
	// Concurrent is the number of simultaneous calls.
	Concurrent int `json:"concurrent"`
	// PayloadBytes is the size of one result's text.
	PayloadBytes int `json:"payload_bytes"`
	// BaselineKiB is the measured process's RSS before the calls.
	BaselineKiB int `json:"baseline_kib"`
	// PeakGrowthKiB is its peak RSS (VmHWM, reset before the calls) minus
	// the baseline.
	PeakGrowthKiB int `json:"peak_growth_kib"`
	// Ratio is PeakGrowthKiB over the payloads (Concurrent × PayloadBytes).
	Ratio float64 `json:"ratio"`
	// AfterKiB is the RSS above the baseline Settle after the calls ended.
	AfterKiB int `json:"after_kib"`
	// Took is the wall time of the calls.
	Took time.Duration `json:"took_ns"`
}

// LargeResultMemory measures the peak RSS growth of the process that holds
// the host while it serves Chars-character results: in this process through
// the library (direct pipes, then the plugin relay), and in a `plughost stdio`
// child through the gateway. Each result goes the whole way: server →
// (plugin) → host → shaping chain (artifact written, bounded view) → caller.
func LargeResultMemory(ctx context.Context, o MemoryOptions) ([]MemoryRun, error) {
	var out []MemoryRun
	for _, relay := range []bool{false, true} {
		setup := map[bool]string{false: "library, direct pipes", true: "library, plugin relay"}[relay]
		runs, err := libraryMemory(ctx, o, relay, setup)
		if err != nil {
			return out, fmt.Errorf("%s: %w", setup, err)
		}
		out = append(out, runs...)
	}
	if o.Plughost != "" {
		runs, err := gatewayMemory(ctx, o)
		if err != nil {
			return out, fmt.Errorf("gateway: %w", err)
		}
		out = append(out, runs...)
	}
	return out, nil
}

// generateArgs are the arguments of one large call.
func (o MemoryOptions) generateArgs() map[string]any { return map[string]any{"chars": o.Chars} }

func libraryMemory(ctx context.Context, o MemoryOptions, relay bool, setup string) ([]MemoryRun, error) {
	h, err := startHost(ctx, o.Options, 1, relay)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	sess := h.NewSession()
	args, _ := json.Marshal(o.generateArgs())
	call := func() error {
		return checkedHost(sess.Call(ctx, "mcp_s0_generate_text", args))
	}
	if _, err := sess.Call(ctx, "mcp_s0_generate_text", json.RawMessage(`{"chars": 1000}`)); err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []MemoryRun
	for _, n := range o.Concurrency {
		runtime.GC()
		debug.FreeOSMemory()
		r, err := measure(self, n, o, call)
		if err != nil {
			return out, err
		}
		r.Setup = setup
		out = append(out, r)
	}
	return out, nil
}

// resultError turns a failed or error result into an error.
func resultError(res *mcp.CallToolResult, err error) error {
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("the call returned an error result: %v", res.Content)
	}
	return nil
}

// measure runs n calls at once and reads the memory of process pid.
func measure(pid, n int, o MemoryOptions, call func() error) (MemoryRun, error) {
	r := MemoryRun{Concurrent: n, PayloadBytes: o.Chars}
	if err := resetPeak(pid); err != nil {
		return r, err
	}
	r.BaselineKiB = procStatusKiB(pid, "VmRSS:")
	began := time.Now()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { errs <- call() })
	}
	wg.Wait()
	r.Took = time.Since(began)
	close(errs)
	for err := range errs {
		if err != nil {
			return r, err
		}
	}
	r.PeakGrowthKiB = procStatusKiB(pid, "VmHWM:") - r.BaselineKiB
	r.Ratio = float64(r.PeakGrowthKiB) * 1024 / float64(n*o.Chars)
	time.Sleep(o.Settle)
	r.AfterKiB = procStatusKiB(pid, "VmRSS:") - r.BaselineKiB
	return r, nil
}

// gatewayMemory measures a fresh `plughost stdio` child per concurrency,
// serving the demo server, called over MCP on its stdin/stdout.
func gatewayMemory(ctx context.Context, o MemoryOptions) ([]MemoryRun, error) {
	var out []MemoryRun
	for _, n := range o.Concurrency {
		r, err := gatewayMemoryOnce(ctx, o, n)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func gatewayMemoryOnce(ctx context.Context, o MemoryOptions, n int) (MemoryRun, error) {
	dir, err := os.MkdirTemp("", "plughost-bench-memory-")
	if err != nil {
		return MemoryRun{}, err
	}
	defer os.RemoveAll(dir)
	cfg := map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true, "workspace": filepath.Join(dir, "workspace"),
		"plugins": map[string]any{"dirs": o.PluginDirs},
		"servers": map[string]any{"demo": map[string]any{"enabled": true, "command": o.Command, "args": o.Args}},
	}}}
	raw, _ := json.Marshal(cfg)
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		return MemoryRun{}, err
	}
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(o.Plughost, append(os.Environ(), "HOME="+dir), []string{"stdio", "--config", path, "--wait", "60s"},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = env
			return cmd, nil
		}))
	c, err := initializedClient(ctx, tr)
	if err != nil {
		return MemoryRun{}, err
	}
	defer c.Close()
	call := func(args map[string]any) error {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "mcp_demo_generate_text", args
		res, err := c.CallTool(ctx, req)
		return resultError(res, err)
	}
	if err := call(map[string]any{"chars": 1000}); err != nil {
		return MemoryRun{}, err
	}
	time.Sleep(o.Settle) // let start-up garbage settle before the baseline
	r, err := measure(cmd.Process.Pid, n, o, func() error { return call(o.generateArgs()) })
	r.Setup = "gateway (plughost stdio, direct pipes)"
	return r, err
}

// resetPeak resets the peak RSS (VmHWM) of a process (Linux ≥ 4.0).
func resetPeak(pid int) error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fmt.Errorf("reset the peak RSS of pid %d: %w", pid, err)
	}
	return nil
}

// procStatusKiB reads one kB field (VmRSS:, VmHWM:) of /proc/<pid>/status.
func procStatusKiB(pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}
