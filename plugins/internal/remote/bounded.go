package remote

import (
	"bytes"
	"io"
	"net/http"

	"github.com/plughost/plughost/pluginapi"
)

// boundedBodies wraps a round tripper so that no response body from the
// server is read past the message limit (OpenRequest.MaxMessageBytes, the
// max_message_mb setting): a plain body (one JSON-RPC message or batch) may
// hold at most limit bytes in all, and an event stream at most limit bytes
// per event. A read past it fails with a *pluginapi.Error of
// KindMessageTooLarge. mcp-go reads bodies whole (JSON) or line by line
// (SSE) with no bound of its own, so without this a server sending an
// endless body or event would grow the plugin's memory without limit.
//
// A plain body over the limit fails only the request it answered (the
// server stays connected); an event over the limit on the legacy SSE stream
// breaks that stream, which ends the connection (the host reconnects).
//
// Event streams answering a GET are bounded only with getStreams (the
// legacy SSE transport, whose one GET stream carries every answer): the
// standalone GET stream of a streamable-HTTP session is left as mcp-go
// reads it, because wrapping it upset mcp-go's SEP-1699 stream resumption
// (the conformance suite's sse-retry scenario saw a late reconnection).
// Tool results over streamable HTTP come on POST answers, which are bounded.
//
// With a spool (OpenRequest.Spool), a successful answer's body or event
// over the limit that is a tools/call result is spooled to a file instead
// (spoolBody, eventSpoolBody): the call gets a small result naming the
// file, and the stream and the connection go on.
type boundedBodies struct {
	base       http.RoundTripper
	limit      int
	getStreams bool
	spool      *pluginapi.ResultSpool // nil: no spooling
}

func (b *boundedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	events := mediaType(resp.Header.Get("Content-Type")) == "text/event-stream"
	spool := b.spool != nil && b.spool.MaxBytes > b.limit && resp.StatusCode/100 == 2
	switch {
	case events && req.Method == http.MethodGet && !b.getStreams:
	case events && spool:
		resp.Body = &eventSpoolBody{ReadCloser: resp.Body, limit: b.limit, spool: b.spool, nl: true}
	case events:
		resp.Body = &eventLimitBody{ReadCloser: resp.Body, limit: b.limit}
	case spool:
		// The body handed on may be a small result, not what the server sent.
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		resp.Body = &spoolBody{ReadCloser: resp.Body, limit: b.limit, spool: b.spool}
	default:
		resp.Body = &totalLimitBody{ReadCloser: resp.Body, limit: b.limit}
	}
	return resp, nil
}

// tooLarge is the error of a body or event over limit, seen bytes in.
func tooLarge(what string, limit, seen int) error {
	return &pluginapi.Error{Op: "recv", Kind: pluginapi.KindMessageTooLarge,
		Err: &pluginapi.MessageTooLargeError{Limit: limit, Seen: seen, What: what}}
}

// totalLimitBody fails a read that would take the body past limit bytes.
type totalLimitBody struct {
	io.ReadCloser
	limit int
	n     int
	err   error
}

func (t *totalLimitBody) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.ReadCloser.Read(p)
	t.n += n
	if t.n > t.limit {
		t.err = tooLarge("response body", t.limit, t.n)
		return 0, t.err
	}
	return n, err
}

// eventLimitBody fails a read once one event of the stream (the bytes since
// the last blank line) exceeds limit bytes.
type eventLimitBody struct {
	io.ReadCloser
	limit int
	event int  // bytes of the current event so far
	nl    bool // the last byte seen ended a line
	err   error
}

func (e *eventLimitBody) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.ReadCloser.Read(p)
	e.scan(p[:n])
	if e.event > e.limit {
		e.err = tooLarge("event", e.limit, e.event)
		return 0, e.err
	}
	return n, err
}

// scan advances the event size over b: a blank line ("\n\n", "\n\r\n")
// ends an event.
func (e *eventLimitBody) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			e.event += len(b)
			if len(b) > 1 || b[0] != '\r' {
				e.nl = false
			}
			return
		}
		line := b[:i]
		if e.nl && (len(line) == 0 || (len(line) == 1 && line[0] == '\r')) {
			e.event = 0
		} else {
			e.event += i + 1
		}
		e.nl = true
		b = b[i+1:]
	}
}
