package remote

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/plughost/plughost/pluginapi"
)

// readChunk is how much a spooling body reads from the server at a time.
const readChunk = 32 << 10

// errBodyClosed is what a read of a closed spooling body returns.
var errBodyClosed = errors.New("response body closed")

// closeGuard lets Close run while a Read is blocked on the server (mcp-go
// closes a stream's body from another goroutine to end it): the body's
// state is touched only under mu, which a Read gives up only while it waits
// for the server, and what is held is released by Close when no Read is
// running, else by that Read when it returns.
type closeGuard struct {
	mu      sync.Mutex
	reading bool
	closed  bool
}

// readServer reads r with mu given up; it reports errBodyClosed when the
// body was closed meanwhile. mu must be held.
func (g *closeGuard) readServer(r io.Reader, buf []byte) (int, error) {
	g.reading = true
	g.mu.Unlock()
	n, err := r.Read(buf)
	g.mu.Lock()
	g.reading = false
	if g.closed {
		return 0, errBodyClosed
	}
	return n, err
}

// close marks the body closed and reports whether the caller must release
// what it holds (no Read is running). mu must be held.
func (g *closeGuard) close() (release bool) {
	g.closed = true
	return !g.reading
}

// spoolBody is a plain response body (one JSON-RPC message) read with a
// result spool: the body is gathered up to the message limit before mcp-go
// sees any of it; one that ends within the limit is handed on as it came,
// one that passes it goes through a pluginapi.SpoolWriter and mcp-go reads
// the small result naming the file instead. What cannot be spooled (not a
// result, over the spool's own limit) fails the read as totalLimitBody
// would.
type spoolBody struct {
	io.ReadCloser
	closeGuard
	limit    int
	spool    *pluginapi.ResultSpool
	gathered bool
	out      held  // what mcp-go reads
	err      error // returned once out is drained
}

func (b *spoolBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errBodyClosed
	}
	if !b.gathered {
		b.gathered = true
		b.err = b.gather()
		if b.closed {
			b.out.Release()
			return 0, errBodyClosed
		}
	}
	if b.out.Len() > 0 {
		return b.out.Read(p)
	}
	return 0, b.err
}

// gather reads the whole body into out, spooling it past the limit. It
// returns io.EOF after a body read whole.
func (b *spoolBody) gather() error {
	buf := make([]byte, readChunk)
	for {
		n, err := b.readServer(b.ReadCloser, buf)
		_, _ = b.out.Write(buf[:n]) // a failed chunk mapping shows as a short body, refused by mcp-go
		if b.out.Len() > b.limit {
			return b.spoolRest(buf)
		}
		if err != nil {
			return err
		}
	}
}

// spoolRest spools what was gathered and the rest of the body, leaving the
// message that stands in for it in out.
func (b *spoolBody) spoolRest(buf []byte) error {
	w, err := b.spool.Begin(b.limit, "response body", b.out.Len())
	if err != nil {
		b.out.Release()
		return err
	}
	_, err = w.ReadFrom(&b.out)
	b.out.Release()
	for err == nil {
		var n int
		n, err = b.readServer(b.ReadCloser, buf)
		if _, werr := w.Write(buf[:n]); werr != nil {
			err = werr
		}
	}
	if !errors.Is(err, io.EOF) {
		w.Abort()
		return err
	}
	msg, err := w.Finish()
	if err != nil {
		return err
	}
	_, _ = b.out.Write(msg)
	return io.EOF
}

// Close releases what is held and closes the body.
func (b *spoolBody) Close() error {
	b.mu.Lock()
	if b.close() {
		b.out.Release()
	}
	b.mu.Unlock()
	return b.ReadCloser.Close()
}

// eventSpoolBody is an event stream read with a result spool: each event
// is held until its blank line, then handed on whole, as long as it is
// within the message limit. An event that passes the limit has its data
// lines (the message) fed to a pluginapi.SpoolWriter as they arrive; at its
// end mcp-go reads one small event carrying the result that names the file
// (with the event's id, for resumption). What cannot be spooled fails the
// stream as eventLimitBody would.
type eventSpoolBody struct {
	io.ReadCloser
	closeGuard
	limit int
	spool *pluginapi.ResultSpool

	buf     []byte
	rest    []byte // read from the server, not yet scanned
	readErr error  // the server's body ended (with rest still to scan)
	nl      bool   // the last byte scanned ended a line
	event   held   // the current event, then the event handed on
	serving bool   // event is complete and being read
	fields  *eventFields
	err     error // a refusal: every later read fails with it
}

func (e *eventSpoolBody) Read(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.buf == nil {
		e.buf = make([]byte, readChunk)
	}
	for {
		switch {
		case e.closed:
			e.refuse(errBodyClosed)
			return 0, errBodyClosed
		case e.err != nil:
			return 0, e.err
		case e.serving:
			if e.event.Len() > 0 {
				return e.event.Read(p)
			}
			e.serving = false
		case len(e.rest) > 0:
			if err := e.scan(); err != nil {
				e.refuse(err)
			}
		case e.readErr != nil:
			if e.fields != nil { // the stream ended inside a spooled event
				e.fields.abort()
				e.fields = nil
			}
			if e.event.Len() > 0 { // a last event with no blank line
				e.serving = true
				continue
			}
			return 0, e.readErr
		default:
			n, err := e.readServer(e.ReadCloser, e.buf)
			e.rest, e.readErr = e.buf[:n], err
		}
	}
}

// refuse ends the stream with err.
func (e *eventSpoolBody) refuse(err error) {
	e.err, e.rest = err, nil
	e.event.Release()
	if e.fields != nil {
		e.fields.abort()
		e.fields = nil
	}
}

// scan consumes rest until it completes an event (serving is then set) or
// runs out.
func (e *eventSpoolBody) scan() error {
	if e.fields != nil {
		return e.scanSpooled()
	}
	end := eventEnd(e.rest, &e.nl)
	take := e.rest
	if end >= 0 {
		take = e.rest[:end]
	}
	if e.event.Len()+len(take) <= e.limit {
		if _, err := e.event.Write(take); err != nil {
			return err
		}
		e.rest = e.rest[len(take):]
		e.serving = end >= 0
		return nil
	}
	w, err := e.spool.Begin(e.limit, "event", e.event.Len()+len(take))
	if err != nil {
		return err
	}
	e.fields = &eventFields{w: w}
	// The held part of the event is whole lines and the start of one; the
	// fields scanner takes it from the event's first byte.
	buf := make([]byte, readChunk)
	for e.event.Len() > 0 {
		n, _ := e.event.Read(buf)
		if _, done, err := e.fields.feed(buf[:n]); err != nil {
			return err
		} else if done {
			return errors.New("an event ended inside its own held bytes") // cannot happen: eventEnd saw no end
		}
	}
	return e.scanSpooled()
}

// scanSpooled feeds rest to the spooled event; at its end the event that
// stands in for it is made ready.
func (e *eventSpoolBody) scanSpooled() error {
	f := e.fields
	n, done, err := f.feed(e.rest)
	e.rest = e.rest[n:]
	if err != nil {
		// A result over the spool's own limit fails its request, not the
		// stream: the rest of the event is skipped and an error answers it.
		id := f.w.ID()
		if pluginapi.LimitSetting(err) == "" || id == nil {
			return err
		}
		f.w, f.refused, f.requestID = nil, err, id
		return nil
	}
	if !done {
		return nil
	}
	e.fields = nil
	e.nl = true
	var msg []byte
	if f.refused != nil {
		msg, err = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": f.requestID,
			"error": map[string]any{"code": internalError, "message": f.refused.Error()}})
	} else {
		msg, err = f.w.Finish()
	}
	if err != nil {
		return err
	}
	ev := []byte("event: message\n")
	if f.hasID {
		ev = append(append(append(ev, "id: "...), f.id...), '\n')
	}
	ev = append(append(append(ev, "data: "...), msg...), "\n\n"...)
	_, _ = e.event.Write(ev)
	e.serving = true
	return nil
}

// internalError is JSON-RPC's "internal error" code.
const internalError = -32603

// Close releases what is held and closes the body.
func (e *eventSpoolBody) Close() error {
	e.mu.Lock()
	if e.close() {
		e.refuse(errBodyClosed)
	}
	e.mu.Unlock()
	return e.ReadCloser.Close()
}

// eventEnd returns the index just past the blank line that ends the event
// b continues, or -1; nl carries whether the last byte scanned ended a
// line from one call to the next.
func eventEnd(b []byte, nl *bool) int {
	off := 0
	for off < len(b) {
		i := indexNL(b[off:])
		if i < 0 {
			if rest := b[off:]; len(rest) > 1 || rest[0] != '\r' {
				*nl = false
			}
			return -1
		}
		line := b[off : off+i]
		blank := *nl && (len(line) == 0 || (len(line) == 1 && line[0] == '\r'))
		*nl = true
		off += i + 1
		if blank {
			return off
		}
	}
	return -1
}
