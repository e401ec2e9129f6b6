package stdiotransport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/stdio/tailbuf"
)

// stderrLines is how many stderr lines the error for an exited server quotes.
const stderrLines = 20

// Conn is one running stdio server. Send is safe for concurrent use; Recv is
// meant for one reader goroutine; Close and Diagnostics may be called any time.
//
// Three goroutines serve it: the stdout reader, the stderr copier and the
// waiter that reaps the process and then ends the rest of its process group.
type Conn struct {
	log    hclog.Logger
	timing timing
	cmd    *exec.Cmd
	group  group
	pid    int

	wmu     sync.Mutex // one writer on stdin
	stdin   *os.File
	wbuf    []byte
	partial bool // a timed-out write left part of a message in the pipe

	stdout *os.File
	stderr *os.File
	tail   *tailbuf.Buffer
	limits readLimits

	msgs       chan json.RawMessage
	recvDone   chan struct{} // closed after recvErr is set: the reader has ended
	recvErr    error
	stderrDone chan struct{}
	exited     chan struct{} // closed when the server process has been reaped
	groupDone  chan struct{} // closed when the rest of its group is gone too
	closing    chan struct{}
	readers    sync.WaitGroup

	closeOnce sync.Once
	closeErr  error

	handMu    sync.Mutex // guards reading and handedOff
	reading   bool       // the stdout reader has started
	handedOff bool       // stdin and stdout belong to someone else now

	mu         sync.Mutex
	exitedAt   time.Time
	exitStatus string
}

var (
	_ pluginapi.Conn                = (*Conn)(nil)
	_ pluginapi.DiagnosticsProvider = (*Conn)(nil)
	_ pluginapi.PipeHandoff         = (*Conn)(nil)
)

// readLimits bound what the reader of the server's stdout takes.
type readLimits struct {
	max   int                    // the longest stdout line accepted, in bytes
	spool *pluginapi.ResultSpool // nil: no spooling, a result over max ends the connection
}

var (
	_ pluginapi.Conn                = (*Conn)(nil)
	_ pluginapi.DiagnosticsProvider = (*Conn)(nil)
	_ pluginapi.PipeHandoff         = (*Conn)(nil)
)

// newConn wraps a started server and starts its goroutines. With lazyRead the
// stdout reader waits for the first Recv, so the pipes can be handed off.
func newConn(log hclog.Logger, tm timing, cmd *exec.Cmd, p pipes, lazyRead bool, lim readLimits) *Conn {
	c := &Conn{
		limits:     lim,
		log:        log,
		timing:     tm,
		cmd:        cmd,
		group:      newGroup(cmd.Process),
		pid:        cmd.Process.Pid,
		stdin:      p.stdin,
		stdout:     p.stdout,
		stderr:     p.stderr,
		tail:       tailbuf.New(stderrTail),
		msgs:       make(chan json.RawMessage),
		recvDone:   make(chan struct{}),
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
		groupDone:  make(chan struct{}),
		closing:    make(chan struct{}),
	}
	c.readers.Add(1)
	go c.copyStderr()
	go c.wait()
	if !lazyRead {
		c.startReading()
	}
	return c
}

// startReading starts the stdout reader once, unless the pipes were handed
// off; it reports whether stdout is (now) being read here.
func (c *Conn) startReading() bool {
	c.handMu.Lock()
	defer c.handMu.Unlock()
	if c.handedOff {
		return false
	}
	if !c.reading {
		c.reading = true
		c.readers.Add(1)
		go c.readLoop()
	}
	return true
}

// HandOff gives the caller the server's stdin and stdout (the direct-pipes
// fast path; see pluginapi.PipeHandoff). The Conn keeps watching the process:
// Recv then returns only when the server exits, with the usual exit error, and
// Close still ends the process group. It fails once Recv has started reading.
func (c *Conn) HandOff() (stdin, stdout *os.File, err error) {
	c.handMu.Lock()
	defer c.handMu.Unlock()
	if c.reading {
		return nil, nil, pluginapi.Errorf("open", pluginapi.KindInternal, "stdout is already being read; open with WantDirectPipes to hand it off")
	}
	c.handedOff = true
	c.readers.Add(1)
	go c.awaitExit()
	return c.stdin, c.stdout, nil
}

// awaitExit stands in for the reader after a handoff: it ends Recv when the
// server exits or the Conn closes.
func (c *Conn) awaitExit() {
	defer c.readers.Done()
	select {
	case <-c.exited:
		c.finishRecv(c.endError())
	case <-c.closing:
		c.finishRecv(io.EOF)
	}
}

// SessionID returns "": stdio has no transport session.
func (c *Conn) SessionID() string { return "" }

// Send writes msg and a newline to the server's stdin. A msg holding raw
// newlines is compacted first, so it stays one line. A deadline or
// cancellation of ctx interrupts a write the server does not read; if that
// leaves half a message in the pipe, the next Send first ends that line so
// the server sees one bad line rather than a corrupted stream.
func (c *Conn) Send(ctx context.Context, msg json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return ctxError("send", err)
	}
	msg, err := oneLine(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.isHandedOff() {
		return pluginapi.Errorf("send", pluginapi.KindInternal, "the server's stdin was handed to the host; write to it there")
	}
	select {
	case <-c.closing:
		return pluginapi.Errorf("send", pluginapi.KindServerExited, "connection closed: %w", os.ErrClosed)
	default:
	}
	prefix := 0
	c.wbuf = c.wbuf[:0]
	if c.partial {
		c.wbuf, prefix = append(c.wbuf, '\n'), 1
	}
	c.wbuf = append(append(c.wbuf, msg...), '\n')
	n, err := c.write(ctx, c.wbuf)
	switch {
	case n > prefix && n < len(c.wbuf):
		c.partial = true
	case n >= prefix:
		c.partial = false
	}
	size := len(c.wbuf)
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil // do not keep a huge buffer for small messages
	}
	if err != nil {
		return c.sendError(ctx, err, n-prefix, size-prefix)
	}
	return nil
}

// oneLine returns msg without raw newlines.
func oneLine(msg json.RawMessage) (json.RawMessage, error) {
	if len(msg) == 0 {
		return nil, pluginapi.Errorf("send", pluginapi.KindInternal, "empty message")
	}
	if bytes.IndexByte(msg, '\n') < 0 && bytes.IndexByte(msg, '\r') < 0 {
		return msg, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, msg); err != nil {
		return nil, pluginapi.Errorf("send", pluginapi.KindInternal, "message is not valid JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// write writes buf to stdin, interrupted by ctx's deadline or cancellation.
func (c *Conn) write(ctx context.Context, buf []byte) (int, error) {
	if ctx.Done() == nil {
		return c.stdin.Write(buf)
	}
	if dl, ok := ctx.Deadline(); ok {
		c.stdin.SetWriteDeadline(dl)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.stdin.SetWriteDeadline(time.Unix(1, 0))
		close(fired)
	})
	n, err := c.stdin.Write(buf)
	if !stop() {
		<-fired // the deadline was set to the past: reset it only after that
	}
	c.stdin.SetWriteDeadline(time.Time{})
	return n, err
}

// sendError classifies a failed write of size bytes, n of which were written.
func (c *Conn) sendError(ctx context.Context, err error, n, size int) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		if errors.Is(ctx.Err(), context.Canceled) {
			return pluginapi.Errorf("send", pluginapi.KindCanceled,
				"canceled while the server was not reading its stdin (%d of %d bytes written): %w", max(n, 0), size, ctx.Err())
		}
		return pluginapi.Errorf("send", pluginapi.KindTimeout,
			"the server did not read its stdin before the deadline (%d of %d bytes written): %w",
			max(n, 0), size, context.DeadlineExceeded)
	case errors.Is(err, syscall.EPIPE), errors.Is(err, os.ErrClosed):
		return pluginapi.Errorf("send", pluginapi.KindServerExited, "the server no longer reads its stdin%s", c.exitSuffix())
	}
	return pluginapi.Errorf("send", pluginapi.KindInternal, "write to the server's stdin: %w", err)
}

// exitSuffix is ": exited (status)" once the server has exited, else "".
func (c *Conn) exitSuffix() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exitStatus == "" {
		return ""
	}
	return fmt.Sprintf(" (pid %d exited: %s)", c.pid, c.exitStatus)
}

// Recv returns the server's next message. Blank lines are skipped; lines
// that are not a JSON object or array follow pluginapi.JunkGuard (a banner
// before the first message is skipped if a message follows soon, else the
// connection ends with KindBadOutput quoting it; later ones are skipped). When the server exits it returns a *pluginapi.Error of
// KindServerExited that quotes the exit status and the end of stderr; after
// Close it returns io.EOF.
func (c *Conn) Recv(ctx context.Context) (json.RawMessage, error) {
	c.startReading()
	select {
	case m := <-c.msgs:
		return m, nil
	case <-c.recvDone:
		if c.isClosing() {
			return nil, io.EOF
		}
		return nil, c.recvErr
	case <-c.closing:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctxError("recv", ctx.Err())
	}
}

// readLoop delivers stdout's messages until it ends, then records why. A
// tools/call result over the message limit is spooled to a file (the line
// read whole, the connection goes on) when the host sent a spool; any other
// line over the limit ends the connection (KindMessageTooLarge): the host
// restarts the server rather than guess where the next message starts.
func (c *Conn) readLoop() {
	defer c.readers.Done()
	r := pluginapi.NewLineReader(c.stdout, c.limits.max)
	r.SetSpool(c.limits.spool)
	var junk pluginapi.JunkGuard
	for {
		line, err := r.ReadLine()
		if pluginapi.KindOf(err) == pluginapi.KindMessageTooLarge {
			c.log.Error("the server sent a message over the limit; giving up the connection", "limit_bytes", r.Limit(), "error", err)
			c.finishRecv(err)
			return
		}
		if err != nil && junk.Armed() && errors.Is(err, os.ErrDeadlineExceeded) && !c.hasExited() {
			err = junk.Expired()
			c.log.Error("the server wrote junk on its stdout and no message followed; giving up the connection", "error", err)
			c.finishRecv(err)
			return
		}
		msg, isJunk := c.message(line)
		if isJunk {
			deadline, jerr := junk.Junk(trimSpace(line), time.Now())
			if jerr != nil {
				c.log.Error("the server wrote junk on its stdout; giving up the connection", "error", jerr)
				c.finishRecv(jerr)
				return
			}
			c.log.Debug("skipped a line of server stdout that is not JSON", "line", pluginapi.BadOutput(trimSpace(line)).Error())
			if !deadline.IsZero() {
				c.setReadDeadline(deadline)
			}
		}
		if msg != nil && junk.Message() {
			c.setReadDeadline(time.Time{})
		}
		if msg != nil {
			select {
			case c.msgs <- msg:
			case <-c.closing:
				c.finishRecv(io.EOF)
				return
			}
		}
		if err != nil {
			c.finishRecv(c.endError())
			return
		}
	}
}

// message returns line as a message, or nil with junk true for a line
// that is not JSON (nil, false for a blank line).
func (c *Conn) message(line []byte) (msg json.RawMessage, junk bool) {
	line = trimSpace(line)
	if len(line) == 0 {
		return nil, false
	}
	if (line[0] != '{' && line[0] != '[') || !json.Valid(line) {
		return nil, true
	}
	return line, false
}

// setReadDeadline sets stdout's read deadline, unless the server has
// exited: wait's drain deadline must then stay.
func (c *Conn) setReadDeadline(t time.Time) {
	if c.hasExited() {
		return
	}
	_ = c.stdout.SetReadDeadline(t)
	if c.hasExited() { // wait set its drain deadline meanwhile: restore one
		_ = c.stdout.SetReadDeadline(time.Now().Add(c.timing.termGrace + c.timing.drainWait))
	}
}

// hasExited reports whether the server process has been reaped.
func (c *Conn) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// finishRecv records why Recv ends and wakes it.
func (c *Conn) finishRecv(err error) {
	c.recvErr = err
	close(c.recvDone)
}

// endError waits for the server to exit once its stdout has ended, and
// describes how it ended.
func (c *Conn) endError() error {
	select {
	case <-c.exited:
	case <-c.closing:
		return io.EOF
	case <-time.After(c.timing.exitWait):
		return pluginapi.Errorf("recv", pluginapi.KindServerExited,
			"the server (pid %d) closed its stdout but is still running", c.pid)
	}
	waitFor(c.stderrDone, c.timing.drainWait) // so the tail holds its last words
	c.mu.Lock()
	status := c.exitStatus
	c.mu.Unlock()
	tail := validUTF8(c.tail.LastLines(stderrLines))
	if tail == "" {
		return pluginapi.Errorf("recv", pluginapi.KindServerExited,
			"the server (pid %d) exited: %s; it wrote nothing to stderr", c.pid, status)
	}
	return pluginapi.Errorf("recv", pluginapi.KindServerExited,
		"the server (pid %d) exited: %s; last lines of its stderr:\n%s", c.pid, status, tail)
}

// copyStderr keeps the tail of the server's stderr.
func (c *Conn) copyStderr() {
	defer c.readers.Done()
	defer close(c.stderrDone)
	io.Copy(c.tail, c.stderr)
}

// wait reaps the server, then ends what is left of its process group.
func (c *Conn) wait() {
	err := c.cmd.Wait()
	status := exitStatus(c.cmd.ProcessState, err)
	c.mu.Lock()
	c.exitedAt, c.exitStatus = time.Now(), status
	c.mu.Unlock()
	c.log.Info("server exited", "pid", c.pid, "status", status)
	close(c.exited)
	// A process that left the group may hold stdout or stderr open forever.
	drain := time.Now().Add(c.timing.termGrace + c.timing.drainWait)
	c.stdout.SetReadDeadline(drain)
	c.stderr.SetReadDeadline(drain)
	c.endGroup()
	close(c.groupDone)
}

// endGroup sends SIGTERM to the rest of the process group, and SIGKILL to
// whatever is still running after the grace period.
func (c *Conn) endGroup() {
	if !c.group.alive() {
		return
	}
	c.group.term()
	deadline := time.Now().Add(c.timing.termGrace)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if !c.group.alive() {
			return
		}
	}
	c.log.Debug("process group survived SIGTERM; sending SIGKILL", "pgid", c.pid)
	c.group.kill()
}

// Close ends the server: it closes its stdin, waits for it to exit, sends
// SIGTERM and then SIGKILL to its process group if it does not, and reaps it.
// It is safe to call more than once and concurrently; every call returns the
// result of the first.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

// shutdown is the body of Close.
func (c *Conn) shutdown() error {
	close(c.closing)
	c.stdin.Close() // EOF asks a well-behaved server to exit
	var err error
	if !waitFor(c.exited, c.timing.exitWait) {
		c.log.Debug("server still running after stdin closed; sending SIGTERM", "pid", c.pid)
		c.group.term()
		if !waitFor(c.exited, c.timing.termGrace) {
			c.log.Debug("server survived SIGTERM; sending SIGKILL", "pid", c.pid)
			c.group.kill()
			if !waitFor(c.exited, c.timing.killWait) {
				err = pluginapi.Errorf("close", pluginapi.KindInternal,
					"the server (pid %d) did not exit after SIGKILL", c.pid)
			}
		}
	}
	if err == nil {
		waitFor(c.groupDone, c.timing.termGrace+c.timing.killWait)
	}
	c.stdout.Close()
	c.stderr.Close()
	c.readers.Wait()
	return err
}

// isHandedOff reports whether HandOff gave the pipes away.
func (c *Conn) isHandedOff() bool {
	c.handMu.Lock()
	defer c.handMu.Unlock()
	return c.handedOff
}

// isClosing reports whether Close has been called.
func (c *Conn) isClosing() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// Diagnostics reports the server's pid, the tail of its stderr and, once it
// has exited, when and how.
func (c *Conn) Diagnostics() pluginapi.Diagnostics {
	c.mu.Lock()
	defer c.mu.Unlock()
	return pluginapi.Diagnostics{
		Stderr:     validUTF8(c.tail.String()),
		PID:        c.pid,
		ExitedAt:   c.exitedAt,
		ExitStatus: c.exitStatus,
	}
}

// validUTF8 makes s valid UTF-8 (it crosses gRPC as a proto string) without
// growing it: the ring may cut a character, and servers may print bytes.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	for i := 0; i < utf8.UTFMax && len(s) > 0 && !utf8.RuneStart(s[0]); i++ {
		s = s[1:]
	}
	return strings.ToValidUTF8(s, "?")
}
