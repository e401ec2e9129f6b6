package gateway

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/plughost/plughost/host"
)

// stdioConcurrency bounds the requests of the stdio session handled at once;
// the reader waits beyond it (backpressure instead of unbounded goroutines).
const stdioConcurrency = 64

// ServeStdio serves one MCP session on in/out (newline-delimited JSON-RPC)
// until in ends or ctx does. Requests run concurrently; notifications are
// handled in order. At the end it waits for the calls in flight (up to
// Options.ShutdownTimeout) so their answers are written, then returns.
// Nothing but MCP messages is written to out. The goroutine reading in
// ends when in does: a blocked read of a terminal or pipe cannot be
// interrupted.
func (g *Gateway) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess, err := g.h.CreateSession(ctx, host.SessionRecord{})
	if err != nil {
		return fmt.Errorf("gateway: stdio: %w", err)
	}
	defer sess.Close(context.WithoutCancel(ctx))
	w := &lineWriter{w: out}
	st := g.attach(sess.ID())
	defer g.detach(st)
	sess.SetHandlers(g.handlers(sess.ID(), streamChannel{g, sess.ID()}))

	runCtx, stop := context.WithCancel(ctx)
	var background sync.WaitGroup
	background.Go(func() { g.Run(runCtx) })
	background.Go(func() { w.pump(runCtx, st) })
	defer func() { stop(); background.Wait() }()

	// Calls outlive ctx by the shutdown grace, so their answers get out.
	callCtx, cancelCalls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelCalls()
	var calls sync.WaitGroup
	slots := make(chan struct{}, stdioConcurrency)
	quit := make(chan struct{})
	defer close(quit)
	lines := readLines(in, g.opts.MaxMessageBytes, quit)
	for {
		var l line
		var ok bool
		select {
		case l, ok = <-lines:
		case <-ctx.Done():
		}
		if !ok {
			break
		}
		if l.tooLong {
			w.write(encodeError(nil, &rpcError{Code: codeInvalidRequest,
				Message: fmt.Sprintf("message exceeds %d bytes; send smaller messages", g.opts.MaxMessageBytes)}))
			continue
		}
		g.stdioMessage(callCtx, sess, l.data, w, &calls, slots)
	}
	if err := waitTimeout(&calls, g.opts.ShutdownTimeout); err != nil {
		g.logger.Warn("stdio: calls still running at shutdown; cancelling them", "waited", g.opts.ShutdownTimeout)
		cancelCalls()
		calls.Wait()
	}
	return nil
}

// stdioMessage handles one line: a request in its own goroutine, anything
// else in order.
func (g *Gateway) stdioMessage(ctx context.Context, sess *host.Session, data []byte, w *lineWriter, calls *sync.WaitGroup, slots chan struct{}) {
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	if isBatch(data) {
		g.stdioBatch(ctx, sess, data, w, calls, slots)
		return
	}
	msg, k, perr := parseMessage(data)
	if perr != nil {
		w.write(encodeError(nil, perr))
		return
	}
	x := &exchange{g: g, msg: msg, sess: sess, out: stdioSink{w}}
	switch k {
	case kindRequest:
		run, ok := g.admit(ctx, x) // here, in arrival order: the first of two with one id runs
		if !ok {
			return
		}
		slots <- struct{}{}
		calls.Go(func() {
			defer func() { <-slots }()
			run()
		})
	case kindNotification:
		g.serveNotification(ctx, x)
	case kindResponse:
		if !g.answered(sess.ID(), msg) {
			g.logger.Debug("a client's response matches no request of the gateway", "id", string(msg.ID))
		}
	}
}

// stdioBatch serves a batch line, when the session's version has batches:
// its requests run like single ones, and their responses are written as
// one line holding the array once the last is in (none for a batch
// without requests).
func (g *Gateway) stdioBatch(ctx context.Context, sess *host.Session, data []byte, w *lineWriter, calls *sync.WaitGroup, slots chan struct{}) {
	st, err := sess.State(ctx)
	if err != nil {
		w.write(encodeError(nil, asRPCError(err)))
		return
	}
	if !batchesAllowed(st.Protocol) {
		w.write(encodeError(nil, batchRefused(st.Protocol)))
		return
	}
	items, perr := parseBatch(data)
	if perr != nil {
		w.write(encodeError(nil, perr))
		return
	}
	reply := &batchReply{want: answers(items), done: func(replies [][]byte) { w.write(encodeBatch(replies)) }}
	g.serveBatch(ctx, sess, items, stdioSink{w}, reply,
		func(it batchItem) bool { return g.answered(sess.ID(), it.msg) },
		func(run func()) {
			slots <- struct{}{}
			calls.Go(func() {
				defer func() { <-slots }()
				run()
			})
		})
}

// waitTimeout waits for wg, at most d.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(d):
		return errors.New("timed out")
	}
}

// stdioSink writes a request's messages to stdout as they come.
type stdioSink struct{ w *lineWriter }

func (s stdioSink) notify(msg []byte) bool { s.w.write(msg); return true }
func (s stdioSink) respond(msg []byte)     { s.w.write(msg) }

// lineWriter writes whole messages, one per line, from many goroutines.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (lw *lineWriter) write(msg []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return // the client is gone; nothing more can reach it
	}
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	_, lw.err = lw.w.Write(buf)
}

// pump writes the stream's messages (notifications outside requests) until
// ctx ends.
func (lw *lineWriter) pump(ctx context.Context, st *stream) {
	for {
		select {
		case msg := <-st.queue:
			lw.write(msg)
		case <-st.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// line is one input line, or the note that it was too long.
type line struct {
	data    []byte
	tooLong bool
}

// readLines reads newline-delimited messages from in until it ends or quit
// is closed. A line longer than max is skipped (reported as tooLong)
// without being held in memory.
func readLines(in io.Reader, max int64, quit <-chan struct{}) <-chan line {
	out := make(chan line)
	go func() {
		defer close(out)
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			data, tooLong, err := readLine(r, max)
			if len(data) > 0 || tooLong {
				select {
				case out <- line{data: data, tooLong: tooLong}:
				case <-quit:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

func readLine(r *bufio.Reader, max int64) ([]byte, bool, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if int64(len(buf)+len(chunk)) > max+1 { // +1: the newline
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}
