//go:build linux

package stdiotransport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/pluginapi"
)

// logBuffer collects a transport's logs; it outlives the test safely.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testParentEnv is the plugin environment the tests pretend to have.
func testParentEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=/home/tester",
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=/home/tester/.config",
		"AWS_SECRET_ACCESS_KEY=aws-secret-value",
		"UNRELATED=1",
	}
}

// newTestTransport returns a Transport with short shutdown waits, logging to logs.
func newTestTransport(logs io.Writer) *Transport {
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace, JSONFormat: true})
	tr := New(logger, WithEnviron(testParentEnv))
	tr.timing = timing{exitWait: 300 * time.Millisecond, termGrace: 300 * time.Millisecond, killWait: 2 * time.Second, drainWait: 300 * time.Millisecond}
	return tr
}

// openConfig opens a server and closes it when the test ends.
func openConfig(t *testing.T, tr *Transport, cfg Config) *Conn {
	t.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tr.Open(context.Background(), pluginapi.OpenRequest{ServerName: t.Name(), Config: raw})
	if err != nil {
		t.Fatalf("Open() error: %v", err)
	}
	c := conn.(*Conn)
	t.Cleanup(func() { c.Close() })
	return c
}

// openShell opens `sh -c script` in dir.
func openShell(t *testing.T, script string) *Conn {
	t.Helper()
	return openConfig(t, newTestTransport(io.Discard), Config{Command: "sh", Args: []string{"-c", script}})
}

// recv calls Recv with a timeout so a broken test fails instead of hanging.
func recv(t *testing.T, c *Conn) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Recv(ctx)
}

// send calls Send with a timeout and fails the test on error.
func send(t *testing.T, c *Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Send(ctx, json.RawMessage(msg)); err != nil {
		t.Fatalf("Send() error: %v", err)
	}
}

// wantKind fails unless err is a *pluginapi.Error of kind.
func wantKind(t *testing.T, err error, op string, kind pluginapi.Kind) *pluginapi.Error {
	t.Helper()
	var pe *pluginapi.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *pluginapi.Error", err, err)
	}
	if pe.Op != op || pe.Kind != kind {
		t.Fatalf("error = %v; Op, Kind = %q, %q; want %q, %q", err, pe.Op, pe.Kind, op, kind)
	}
	return pe
}

func TestRoundTrip(t *testing.T) {
	c := openShell(t, "cat")
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
	}
	for _, m := range msgs {
		send(t, c, m)
	}
	// A message with raw newlines is compacted to one line.
	send(t, c, "{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 3\n}")
	want := append(msgs, `{"jsonrpc":"2.0","id":3}`)
	for _, w := range want {
		got, err := recv(t, c)
		if err != nil {
			t.Fatalf("Recv() error: %v", err)
		}
		if diff := cmp.Diff(w, string(got)); diff != "" {
			t.Errorf("Recv() mismatch (-want +got):\n%s", diff)
		}
	}
	if c.SessionID() != "" {
		t.Errorf("SessionID() = %q, want empty", c.SessionID())
	}
}

func TestLargeMessage(t *testing.T) {
	c := openShell(t, "cat")
	big := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 10<<20) + `"}}`
	errc := make(chan error, 1)
	go func() { errc <- c.Send(context.Background(), json.RawMessage(big)) }()
	got, err := recv(t, c)
	if err != nil {
		t.Fatalf("Recv() error: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Send() error: %v", err)
	}
	if len(got) != len(big) || string(got) != big {
		t.Fatalf("Recv() returned %d bytes, want %d identical bytes", len(got), len(big))
	}
}

func TestConcurrentSends(t *testing.T) {
	c := openShell(t, "cat")
	const senders, each = 8, 50
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				msg := fmt.Sprintf(`{"id":"%d-%d","pad":"%s"}`, s, i, strings.Repeat("p", 1000*i))
				if err := c.Send(context.Background(), json.RawMessage(msg)); err != nil {
					t.Errorf("Send() error: %v", err)
					return
				}
			}
		}()
	}
	seen := map[string]bool{}
	for len(seen) < senders*each {
		got, err := recv(t, c)
		if err != nil {
			t.Fatalf("Recv() after %d messages: %v", len(seen), err)
		}
		var m struct{ ID string }
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("message corrupted: %v", err)
		}
		seen[m.ID] = true
	}
	wg.Wait()
}

func TestNonJSONLinesSkipped(t *testing.T) {
	logs := &logBuffer{}
	c := openConfig(t, newTestTransport(logs), Config{Command: "sh", Args: []string{"-c", `
		echo "Server starting on stdio..."
		echo
		printf '   \r\n'
		echo '[not json'
		echo '42'
		printf '{"jsonrpc":"2.0","id":1}\r\n'
		echo 'npm notice junk'
		echo '  {"jsonrpc":"2.0","id":2}  '
		printf '{"jsonrpc":"2.0","id":3}'`}})
	for _, want := range []string{`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":2}`, `{"jsonrpc":"2.0","id":3}`} {
		got, err := recv(t, c)
		if err != nil {
			t.Fatalf("Recv() error: %v", err)
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("Recv() mismatch (-want +got):\n%s", diff)
		}
	}
	_, err := recv(t, c)
	wantKind(t, err, "recv", pluginapi.KindServerExited)
	if !strings.Contains(logs.String(), "Server starting on stdio...") {
		t.Errorf("skipped line not logged at debug; logs:\n%s", logs)
	}
}

func TestServerExit(t *testing.T) {
	c := openShell(t, `for i in $(seq 1 30); do echo "err line $i" >&2; done; echo '{"id":1}'; exit 3`)
	if _, err := recv(t, c); err != nil {
		t.Fatalf("Recv() error: %v", err)
	}
	_, err := recv(t, c)
	wantKind(t, err, "recv", pluginapi.KindServerExited)
	msg := err.Error()
	var lines []string
	for i := 11; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("err line %d", i))
	}
	want := fmt.Sprintf("recv: the server (pid %d) exited: exit status 3; last lines of its stderr:\n%s", c.pid, strings.Join(lines, "\n"))
	if diff := cmp.Diff(want, msg); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
	// Recv keeps reporting the same end.
	if _, err2 := recv(t, c); err2 != err {
		t.Errorf("second Recv() = %v, want the same error", err2)
	}
	d := c.Diagnostics()
	if d.PID != c.pid || d.PID <= 0 || d.ExitStatus != "exit status 3" || d.ExitedAt.IsZero() {
		t.Errorf("Diagnostics() = %+v", d)
	}
	if !strings.HasPrefix(d.Stderr, "err line 1\n") || !strings.HasSuffix(d.Stderr, "err line 30\n") {
		t.Errorf("Diagnostics().Stderr = %q", d.Stderr)
	}
	// The server is gone: Send reports it.
	err = c.Send(context.Background(), json.RawMessage(`{"id":2}`))
	wantKind(t, err, "send", pluginapi.KindServerExited)
}

func TestServerExitWithoutStderr(t *testing.T) {
	c := openShell(t, "kill -9 $$")
	_, err := recv(t, c)
	wantKind(t, err, "recv", pluginapi.KindServerExited)
	want := fmt.Sprintf("recv: the server (pid %d) exited: signal: killed; it wrote nothing to stderr", c.pid)
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
}

func TestStdoutClosedButRunning(t *testing.T) {
	c := openShell(t, "exec >&-; exec sleep 1000")
	_, err := recv(t, c)
	wantKind(t, err, "recv", pluginapi.KindServerExited)
	if !strings.Contains(err.Error(), "closed its stdout but is still running") {
		t.Errorf("error = %v", err)
	}
}

// grandchild starts `script` (which must write a background pid to the file
// named by $PIDFILE) and returns the connection and that pid.
func grandchild(t *testing.T, script string) (*Conn, int) {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "pid")
	c := openShell(t, strings.ReplaceAll(script, "$PIDFILE", pidfile))
	var b []byte
	written := func() bool { // the whole line, not a partial write
		var err error
		b, err = os.ReadFile(pidfile)
		return err == nil && bytes.HasSuffix(b, []byte("\n"))
	}
	if !testwait.Until(10*time.Second, written) {
		t.Fatal("the server did not write its grandchild's pid")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return c, pid
}

// running reports whether pid is a live (non-zombie) process.
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false
		}
		return syscall.Kill(pid, 0) == nil
	}
	state, _, ok := parseStat(stat)
	return ok && state != 'Z' && state != 'X'
}

func TestCloseKillsGrandchildren(t *testing.T) {
	c, pid := grandchild(t, `sleep 1000 & echo $! > $PIDFILE; cat`)
	if !running(pid) {
		t.Fatalf("grandchild %d not running before Close", pid)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close() error: %v", err)
	}
	if running(pid) {
		t.Errorf("grandchild %d still running after Close", pid)
	}
	if running(c.pid) {
		t.Errorf("server %d still running after Close", c.pid)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close() error: %v", err)
	}
	if _, err := recv(t, c); err != io.EOF {
		t.Errorf("Recv() after Close = %v, want io.EOF", err)
	}
	err := c.Send(context.Background(), json.RawMessage(`{}`))
	if pe := wantKind(t, err, "send", pluginapi.KindServerExited); !errors.Is(pe, os.ErrClosed) {
		t.Errorf("Send() after Close = %v, want os.ErrClosed", err)
	}
}

func TestServerExitKillsItsGroup(t *testing.T) {
	// The grandchild keeps stdout open: only killing the group ends Recv.
	c, pid := grandchild(t, `sleep 1000 & echo $! > $PIDFILE; read line; echo bye >&2; exit 0`)
	send(t, c, `{"id":1}`)
	_, err := recv(t, c)
	wantKind(t, err, "recv", pluginapi.KindServerExited)
	if !strings.Contains(err.Error(), "exit status 0") || !strings.Contains(err.Error(), "bye") {
		t.Errorf("error = %v", err)
	}
	if !testwait.Until(10*time.Second, func() bool { return !running(pid) }) {
		t.Errorf("grandchild %d still running after the server exited", pid)
	}
}

func TestCloseEscalatesToSIGKILL(t *testing.T) {
	// The trap makes SIGTERM ignored in the shell and in what it execs.
	c, pid := grandchild(t, `trap "" TERM; sleep 1000 & echo $! > $PIDFILE; while :; do sleep 1; done`)
	if err := c.Close(); err != nil {
		t.Fatalf("Close() error: %v", err)
	}
	if got := c.Diagnostics().ExitStatus; got != "signal: killed" {
		t.Errorf("ExitStatus = %q, want signal: killed", got)
	}
	if running(pid) || running(c.pid) {
		t.Errorf("processes survive Close: server %v, grandchild %v", running(c.pid), running(pid))
	}
}

func TestCloseSendsSIGTERM(t *testing.T) {
	c := openShell(t, `exec sleep 1000`) // ignores stdin EOF, dies on SIGTERM
	if err := c.Close(); err != nil {
		t.Fatalf("Close() error: %v", err)
	}
	if got := c.Diagnostics().ExitStatus; got != "signal: terminated" {
		t.Errorf("ExitStatus = %q, want signal: terminated", got)
	}
}

func TestConcurrentClose(t *testing.T) {
	c := openShell(t, "cat")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Close(); err != nil {
				t.Errorf("Close() error: %v", err)
			}
		}()
	}
	wg.Wait()
}

func TestRecvContext(t *testing.T) {
	c := openShell(t, "cat")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Recv(ctx)
	wantKind(t, err, "recv", pluginapi.KindTimeout)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = c.Recv(ctx)
	wantKind(t, err, "recv", pluginapi.KindCanceled)
	// The connection still works afterwards.
	send(t, c, `{"id":1}`)
	if got, err := recv(t, c); err != nil || string(got) != `{"id":1}` {
		t.Errorf("Recv() = %s, %v", got, err)
	}
}

// mkfifo makes a FIFO named name in dir. A server blocks at `read -r x <fifo`
// until the test lets it go (see awaitGate).
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// awaitGate waits until the server is blocked reading the FIFO at path and
// returns its write end; openGate on it lets the server go on.
func awaitGate(t *testing.T, path, why string) *os.File {
	t.Helper()
	var f *os.File
	// Opening a FIFO for writing without blocking fails (ENXIO) until a
	// reader has it open.
	if !testwait.Until(10*time.Second, func() bool {
		var err error
		f, err = os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		return err == nil
	}) {
		t.Fatalf("the server never reached %s: %s", filepath.Base(path), why)
	}
	return f
}

// openGate ends the line the server is waiting for on gate.
func openGate(t *testing.T, gate *os.File) {
	t.Helper()
	if _, err := gate.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	gate.Close()
}

// unreadBytes returns how many bytes wait unread in the pipe f writes to.
func unreadBytes(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn() // not f.Fd(): that would make f blocking and break deadlines
	if err != nil {
		t.Fatal(err)
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil {
		t.Fatal(err)
	}
	if errno != 0 {
		t.Fatalf("FIONREAD: %v", errno)
	}
	return int(n)
}

func TestSendDeadline(t *testing.T) {
	// The server reads nothing until gate1 opens. Then its read builtin reads
	// the first line (one byte at a time), it waits at gate2, and echoes the
	// rest. While it waits, nothing drains its stdin, so an interrupted Send
	// always blocks on a full pipe with part of its message written.
	dir := t.TempDir()
	gate1, gate2 := mkfifo(t, dir, "gate1"), mkfifo(t, dir, "gate2")
	c := openShell(t, fmt.Sprintf("read -r x <'%s'; read -r go; read -r x <'%s'; cat", gate1, gate2))
	big := `{"big":"` + strings.Repeat("b", 4<<20) + `"}`

	// A deadline that passes before the write begins (preparing 4 MiB can be
	// slow under -race) leaves the pipe empty and the stream clean: try again
	// with a longer one until the write has begun.
	for timeout := 100 * time.Millisecond; unreadBytes(t, c.stdin) == 0; timeout *= 2 {
		if timeout > 5*time.Second {
			t.Fatal("no timed-out Send wrote part of its message")
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		start := time.Now()
		err := c.Send(ctx, json.RawMessage(big))
		cancel()
		wantKind(t, err, "send", pluginapi.KindTimeout)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > timeout+5*time.Second {
			t.Errorf("Send took %v despite a %v deadline", d, timeout)
		}
	}

	// A Send canceled while the pipe is still full writes nothing; the half
	// line stays pending.
	pending := unreadBytes(t, c.stdin)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := c.Send(ctx, json.RawMessage(big))
	wantKind(t, err, "send", pluginapi.KindCanceled)
	if n := unreadBytes(t, c.stdin); n != pending {
		t.Fatalf("%d bytes in the pipe after a Send into a full pipe, want %d", n, pending)
	}

	// Half a message is in the pipe. The server reads it and waits for the
	// end of its line, which the next Send writes first: only then does the
	// server get to gate2, leaving that Send blocked with half its message
	// written when it is canceled.
	openGate(t, awaitGate(t, gate1, "the server did not start"))
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Send(ctx, json.RawMessage(big)) }()
	g2 := awaitGate(t, gate2, "the Send after a timed-out one did not end the half-written line")
	select {
	case err := <-errc:
		t.Fatalf("Send() = %v; the server read its whole message as part of the half-written line", err)
	default:
	}
	cancel()
	select {
	case err := <-errc:
		wantKind(t, err, "send", pluginapi.KindCanceled)
	case <-time.After(10 * time.Second):
		t.Fatal("Send still blocked after its context was canceled")
	}
	if unreadBytes(t, c.stdin) == 0 {
		t.Fatal("the canceled Send left no half message in the pipe")
	}

	// The next Send ends that line too, so the server echoes one junk line
	// (which Recv skips) and then the message intact.
	openGate(t, g2)
	go func() { errc <- c.Send(context.Background(), json.RawMessage(`{"id":"after"}`)) }()
	got, err := recv(t, c)
	if err != nil || string(got) != `{"id":"after"}` {
		t.Fatalf("Recv() = %.80s, %v; want the message sent after the timeouts", got, err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Send() error: %v", err)
	}
}

func TestEnvironment(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "server.env")
	if err := os.WriteFile(envFile, []byte("FROM_FILE=file\nOVERRIDE=file\nHOME=/from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{
			name: "allowlist, file and env",
			cfg: Config{Command: self, EnvFile: envFile, Env: map[string]string{
				helperEnv: "env", "OVERRIDE": "env", "TOKEN": "tok",
			}},
			want: []string{
				"FROM_FILE=file",
				"HOME=/from-file",
				"LANG=C.UTF-8",
				"OVERRIDE=env",
				"PATH=" + os.Getenv("PATH"),
				helperEnv + "=env",
				"TOKEN=tok",
				"XDG_CONFIG_HOME=/home/tester/.config",
			},
		},
		{
			name: "inherit_env",
			cfg:  Config{Command: self, InheritEnv: true, Env: map[string]string{helperEnv: "env"}},
			want: []string{
				"AWS_SECRET_ACCESS_KEY=aws-secret-value",
				"HOME=/home/tester",
				"LANG=C.UTF-8",
				"PATH=" + os.Getenv("PATH"),
				helperEnv + "=env",
				"UNRELATED=1",
				"XDG_CONFIG_HOME=/home/tester/.config",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &logBuffer{}
			c := openConfig(t, newTestTransport(logs), tt.cfg)
			got, err := recv(t, c)
			if err != nil {
				t.Fatalf("Recv() error: %v", err)
			}
			var m struct{ Env []string }
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, m.Env); diff != "" {
				t.Errorf("server environment mismatch (-want +got):\n%s", diff)
			}
			c.Close()
			for _, secret := range []string{"aws-secret-value", "tok"} {
				if strings.Contains(logs.String(), secret) {
					t.Errorf("logs hold the value %q:\n%s", secret, logs)
				}
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "server.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()

	tests := []struct {
		name     string
		ctx      context.Context
		req      pluginapi.OpenRequest
		wantKind pluginapi.Kind
		wantMsg  string
	}{
		{
			name:     "not in PATH",
			req:      request(`{"command": "no-such-server-xyz", "env": {"PATH": "/nonexistent:/also/not"}}`),
			wantKind: pluginapi.KindConnect,
			wantMsg:  `open: executable "no-such-server-xyz" not found in PATH (PATH=/nonexistent:/also/not): install it, give its absolute path, or set env.PATH`,
		},
		{
			name:     "PATH empty",
			req:      request(`{"command": "npx", "env": {"PATH": ""}}`),
			wantKind: pluginapi.KindConnect,
			wantMsg:  `open: executable "npx" not found: PATH is empty in the server's environment (set env.PATH or give the command's absolute path)`,
		},
		{
			name:     "found in the server's PATH only",
			req:      request(`{"command": "server.sh", "env": {"PATH": "` + dir + `"}}`),
			wantKind: pluginapi.KindConnect,
			wantMsg:  `open: executable "server.sh" not found in PATH (PATH=` + dir + `): install it, give its absolute path, or set env.PATH`,
		},
		{
			name:     "absolute path missing",
			req:      request(`{"command": "/no/such/server"}`),
			wantKind: pluginapi.KindConnect,
			wantMsg:  `open: executable "/no/such/server": no such file`,
		},
		{
			name:     "not executable",
			req:      request(`{"command": "` + notExec + `"}`),
			wantKind: pluginapi.KindConnect,
			wantMsg:  `open: executable "` + notExec + `": is not executable (chmod +x it)`,
		},
		{
			name:     "directory",
			req:      request(`{"command": "` + dir + `"}`),
			wantKind: pluginapi.KindConnect,
			wantMsg:  `open: executable "` + dir + `": is a directory`,
		},
		{
			name:     "invalid config",
			req:      request(`{"command": "cat", "headers": {}}`),
			wantKind: pluginapi.KindInvalidConfig,
			wantMsg:  `open: unknown field "headers": the stdio transport takes command, args, env, env_file, inherit_env; headers applies to sse/http servers`,
		},
		{
			name:     "env_file missing",
			req:      request(`{"command": "cat", "env_file": "` + dir + `/missing.env"}`),
			wantKind: pluginapi.KindInvalidConfig,
			wantMsg:  `open: env_file: open ` + dir + `/missing.env: no such file or directory (fix the path or remove env_file)`,
		},
		{
			name:     "canceled",
			ctx:      canceled,
			req:      request(`{"command": "cat"}`),
			wantKind: pluginapi.KindCanceled,
			wantMsg:  `open: context canceled`,
		},
		{
			name:     "deadline passed",
			ctx:      expired,
			req:      request(`{"command": "cat"}`),
			wantKind: pluginapi.KindTimeout,
			wantMsg:  `open: context deadline exceeded`,
		},
	}
	tr := newTestTransport(io.Discard)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			conn, err := tr.Open(ctx, tt.req)
			if conn != nil {
				conn.Close()
				t.Fatal("Open() returned a connection")
			}
			wantKind(t, err, "open", tt.wantKind)
			if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
				t.Errorf("message mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// request builds an OpenRequest for config.
func request(config string) pluginapi.OpenRequest {
	return pluginapi.OpenRequest{ServerName: "test", Config: json.RawMessage(config)}
}

func TestStartFailure(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	// Executable but not a valid program: exec fails.
	if err := os.WriteFile(bad, []byte{0x7f, 'E', 'L', 'F', 0, 0, 0, 0}, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := newTestTransport(io.Discard).Open(context.Background(), request(`{"command": "`+bad+`"}`))
	pe := wantKind(t, err, "open", pluginapi.KindConnect)
	if !strings.HasPrefix(pe.Error(), `open: start "`+bad+`": `) {
		t.Errorf("error = %v", err)
	}
}

func TestCloseUnblocksSend(t *testing.T) {
	c := openShell(t, "exec sleep 1000") // never reads stdin
	errc := make(chan error, 1)
	go func() {
		errc <- c.Send(context.Background(), json.RawMessage(`{"big":"`+strings.Repeat("b", 4<<20)+`"}`))
	}()
	// A write blocked on a full pipe shows nowhere to wait on; 50 ms lets
	// Send fill the 64 KiB pipe and block. Were Close first, Send would fail
	// the same way: a slow machine weakens this test, it cannot fail it.
	time.Sleep(50 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatalf("Close() error: %v", err)
	}
	select {
	case err := <-errc:
		wantKind(t, err, "send", pluginapi.KindServerExited)
	case <-time.After(10 * time.Second):
		t.Fatal("Send still blocked after Close")
	}
}
