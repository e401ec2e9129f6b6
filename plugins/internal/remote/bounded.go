package remote

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/hashicorp/go-hclog"

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
// Event streams answering a GET are bounded too. A GET with Last-Event-ID
// resumes a POST's answer (SEP-1699: the server ended that stream before
// the answer, and mcp-go polls it again) and is read as POST answers are.
// The standalone GET stream of a streamable-HTTP session (server→client
// notifications and requests; mcp-go sends it no Last-Event-ID) gets an
// eventLimitBody that logs the refusal: an event over the limit fails the
// read as a broken connection would, mcp-go's listener ends that stream and
// opens a new one a second later (its retry), without Last-Event-ID, so the
// server does not replay the event. Only that server's stream is affected,
// for that second: calls go on. The legacy SSE transport's one GET stream
// carries every answer (getStreams), so breaking it ends the connection.
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
	logger     hclog.Logger           // the server's; nil: no log
}

func (b *boundedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	events := mediaType(resp.Header.Get("Content-Type")) == "text/event-stream"
	spool := b.spool != nil && b.spool.MaxBytes > b.limit && resp.StatusCode/100 == 2
	standalone := events && req.Method == http.MethodGet && !b.getStreams && req.Header.Get("Last-Event-ID") == ""
	switch {
	case standalone:
		resp.Body = &eventLimitBody{ReadCloser: resp.Body, limit: b.limit, refused: b.refusedOnGET}
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

// refusedOnGET logs an event refused on the standalone GET stream.
func (b *boundedBodies) refusedOnGET(seen int) {
	if b.logger == nil {
		return
	}
	b.logger.Warn(fmt.Sprintf("refused an event of the server's GET stream (server→client notifications and requests): "+
		"it passed the %s message limit (max_message_mb) at %d bytes; the stream is re-opened and the event lost "+
		"(raise max_message_mb for this server if its messages are that large)", pluginapi.FormatBytes(b.limit), seen),
		"limit_bytes", b.limit)
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
	limit   int
	refused func(seen int) // called once when an event passes limit; may be nil
	event   int            // bytes of the current event so far
	nl      bool           // the last byte seen ended a line
	err     error
}

func (e *eventLimitBody) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.ReadCloser.Read(p)
	e.scan(p[:n])
	if e.event > e.limit {
		e.err = tooLarge("event", e.limit, e.event)
		if e.refused != nil {
			e.refused(e.event)
		}
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
