package pluginapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// pipeConn is the host side of the direct-pipes fast path: messages are
// newline-delimited JSON written to the server's stdin and read from its
// stdout, with no plugin hop. The Connect stream stays open beside it: the
// plugin ends it when the server exits (with the exit reason and stderr tail),
// and closing it makes the plugin stop the server's process group.
type pipeConn struct {
	stream *grpcConn
	stdin  *os.File
	stdout *os.File
	reader *LineReader
	junk   JunkGuard // used by Recv only

	writeMu sync.Mutex
	buf     []byte // reused write buffer, guarded by writeMu

	endOnce sync.Once
	ended   chan struct{} // closed when the stream has ended
	endErr  error         // why, set before ended is closed
}

var _ Conn = (*pipeConn)(nil)

func newPipeConn(stream *grpcConn, stdin, stdout *os.File, limit int, spool *ResultSpool) *pipeConn {
	c := &pipeConn{
		stream: stream,
		stdin:  stdin,
		stdout: stdout,
		reader: NewLineReader(stdout, limit),
		ended:  make(chan struct{}),
	}
	c.reader.SetSpool(spool)
	go c.watchStream()
	return c
}

// watchStream waits for the plugin to end the stream (server exit or plugin
// death) and then unblocks a pending Recv.
func (c *pipeConn) watchStream() {
	<-c.stream.ended
	c.endErr = c.stream.endErr
	close(c.ended)
	_ = c.stdout.SetReadDeadline(time.Now()) // a server that died keeps no one reading
}

func (c *pipeConn) Send(ctx context.Context, msg json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return &Error{Op: "send", Kind: kindOfPlain(err), Err: err}
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if d, ok := ctx.Deadline(); ok {
		_ = c.stdin.SetWriteDeadline(d)
		defer c.stdin.SetWriteDeadline(time.Time{})
	}
	c.buf = append(append(c.buf[:0], msg...), '\n')
	if _, err := c.stdin.Write(c.buf); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return &Error{Op: "send", Kind: KindTimeout, Err: context.DeadlineExceeded}
		}
		return &Error{Op: "send", Kind: KindServerExited, Err: err}
	}
	return nil
}

// Recv reads the next JSON line from the server's stdout, skipping blank
// lines. Lines that are not JSON (a server printing logs on stdout) follow
// the JunkGuard rule: a start-up banner is skipped if a message follows
// within JunkGrace, else the connection ends with KindBadOutput quoting it;
// after the first message they are skipped. A line over the message limit
// ends it with KindMessageTooLarge: the stream cannot be trusted past it,
// and the host restarts the server.
func (c *pipeConn) Recv(ctx context.Context) (json.RawMessage, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, &Error{Op: "recv", Kind: kindOfPlain(err), Err: err}
		}
		line, err := c.reader.ReadLine()
		if KindOf(err) == KindMessageTooLarge {
			return nil, err
		}
		if err != nil {
			if c.junk.Armed() && errors.Is(err, os.ErrDeadlineExceeded) && !c.isEnded() {
				return nil, c.junk.Expired()
			}
			return nil, c.endReason(err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if (line[0] != '{' && line[0] != '[') || !json.Valid(line) {
			deadline, jerr := c.junk.Junk(line, time.Now())
			if jerr != nil {
				return nil, jerr
			}
			if !deadline.IsZero() {
				c.setReadDeadline(deadline)
			}
			continue
		}
		if c.junk.Message() {
			c.setReadDeadline(time.Time{})
		}
		return line, nil
	}
}

// setReadDeadline sets stdout's read deadline, unless the stream has ended:
// watchStream's deadline (now) must then stay.
func (c *pipeConn) setReadDeadline(t time.Time) {
	_ = c.stdout.SetReadDeadline(t)
	if c.isEnded() {
		_ = c.stdout.SetReadDeadline(time.Now())
	}
}

// isEnded reports whether the plugin ended the stream.
func (c *pipeConn) isEnded() bool {
	select {
	case <-c.ended:
		return true
	default:
		return false
	}
}

// endReason prefers the plugin's account of the server's end (exit status,
// stderr tail), waiting briefly for it, over the bare read error.
func (c *pipeConn) endReason(readErr error) error {
	select {
	case <-c.ended:
	case <-time.After(2 * time.Second):
		if errors.Is(readErr, io.EOF) {
			return &Error{Op: "recv", Kind: KindServerExited, Err: errors.New("server closed its stdout")}
		}
		return &Error{Op: "recv", Kind: KindServerExited, Err: readErr}
	}
	if c.endErr != nil {
		return c.endErr
	}
	return &Error{Op: "recv", Kind: KindServerExited, Err: errors.New("connection closed")}
}

func (c *pipeConn) SessionID() string { return c.stream.SessionID() }

// UsesDirectPipes reports whether conn, as returned by a plugin Client's
// Open, talks to the server's pipes directly rather than through the relay.
func UsesDirectPipes(conn Conn) bool {
	_, ok := conn.(*pipeConn)
	return ok
}

// Close closes the server's stdin (most servers exit on it), then closes the
// stream so the plugin stops the process group, then releases stdout.
func (c *pipeConn) Close() error {
	c.endOnce.Do(func() {
		c.writeMu.Lock()
		_ = c.stdin.Close()
		c.writeMu.Unlock()
		_ = c.stream.Close()
		_ = c.stdout.Close()
	})
	return nil
}

func (c *pipeConn) connectionID() string { return c.stream.id }
