package pluginapi

import (
	"encoding/json"
	"fmt"
	"io"
)

// SpoolWriter spools one message that passed the message limit while it is
// read (see ResultSpool). A reader that gathered a message up to the limit
// starts one with ResultSpool.Begin, writes what it gathered and then the
// rest of the message as it arrives, and calls Finish at the message's end
// for the small message that stands in for it, or Abort to give it up.
// Write refuses a message that cannot be spooled as soon as that is known.
// Not safe for concurrent use.
type SpoolWriter struct {
	sp      *spooler
	limit   int    // the message limit passed
	held    int    // bytes the reader had read when it began
	what    string // what the message is, for errors ("" = message)
	checked bool   // the message was checked for being a result
	done    bool
}

// Begin starts spooling a message over limit (the message limit, in bytes).
// what names the message in errors ("response body", "event"; "" means
// "message"); held is how many of its bytes the reader has read already
// (past limit: it writes them first), so that a refusal says how much was
// read even when it comes before the writer has seen them all. The spool
// file is created at once.
func (s *ResultSpool) Begin(limit int, what string, held int) (*SpoolWriter, error) {
	sp, err := newSpooler(s)
	if err != nil {
		return nil, &Error{Op: "recv", Kind: KindInternal, Err: fmt.Errorf("spool a result over the %s message limit to %s: %w", FormatBytes(limit), s.Dir, err)}
	}
	return &SpoolWriter{sp: sp, limit: limit, held: held, what: what}, nil
}

// seen is how many bytes of the message were read: what the writer has
// seen, or what the reader held when it began, whichever is more.
func (w *SpoolWriter) seen() int { return max(w.sp.size, w.held) }

// Write scans b, the next bytes of the message. It fails with a *Error of
// KindMessageTooLarge, and removes the file, when the message passes the
// spool's MaxBytes (the error then names MaxSetting), or when it passed the
// message limit and cannot be a tools/call result: not a JSON object, a
// member other than jsonrpc, id and result, or no "result" member within
// the first limit bytes (every SDK writes it before the bulk).
func (w *SpoolWriter) Write(b []byte) (int, error) {
	if w.done {
		return 0, &Error{Op: "recv", Kind: KindInternal, Err: fmt.Errorf("spooled message already ended")}
	}
	cfg := w.sp.cfg
	if w.sp.size+len(b) > cfg.MaxBytes {
		seen := max(w.sp.size+len(b), w.held)
		w.Abort()
		return 0, &Error{Op: "recv", Kind: KindMessageTooLarge, Err: &MessageTooLargeError{Limit: cfg.MaxBytes, Seen: seen, What: "result", Setting: cfg.MaxSetting}}
	}
	w.sp.write(b)
	if !w.checked && w.sp.size > w.limit {
		w.checked = true
		if w.sp.hopeless() {
			return 0, w.refuse()
		}
	}
	if w.sp.notResult {
		return 0, w.refuse()
	}
	return len(b), nil
}

// ID returns the message's top-level id once it has been read whole, else
// nil. It stays available after a refusal, so a reader can answer the
// request with an error instead.
func (w *SpoolWriter) ID() json.RawMessage {
	if len(w.sp.id) == 0 || !json.Valid(w.sp.id) {
		return nil
	}
	return append(json.RawMessage(nil), w.sp.id...)
}

// refuse gives the message up as one over the message limit.
func (w *SpoolWriter) refuse() error {
	w.Abort()
	return &Error{Op: "recv", Kind: KindMessageTooLarge, Err: &MessageTooLargeError{Limit: w.limit, Seen: w.seen(), What: w.what}}
}

// ReadFrom writes everything r holds (gathered chunks, say) to w.
func (w *SpoolWriter) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Finish ends the message: the file takes its final name and the small
// result that stands in for the message is returned. A message that turned
// out not to be a result with an id is refused as over the message limit.
func (w *SpoolWriter) Finish() (json.RawMessage, error) {
	if w.done {
		return nil, &Error{Op: "recv", Kind: KindInternal, Err: fmt.Errorf("spooled message already ended")}
	}
	w.done = true
	msg, ok, err := w.sp.finish(w.limit)
	if err != nil {
		return nil, &Error{Op: "recv", Kind: KindInternal, Err: err}
	}
	if !ok {
		return nil, &Error{Op: "recv", Kind: KindMessageTooLarge, Err: &MessageTooLargeError{Limit: w.limit, Seen: w.seen(), What: w.what}}
	}
	return msg, nil
}

// Abort gives the message up and removes the file; it is safe to call after
// Finish or more than once.
func (w *SpoolWriter) Abort() {
	if !w.done {
		w.done = true
		w.sp.abort()
	}
}
