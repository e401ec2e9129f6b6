package frontdoor

import (
	"fmt"
	"io"
	"net/http"
	"time"
)

// limitBody caps request bodies at max bytes: a declared length over it is
// refused at once with 413, a longer chunked body fails the handler's read
// (the gateway answers 413 itself). It also lifts the server's read
// deadline once the body has been read, so the ReadTimeout that cuts slow
// senders never cancels a long call or an event stream afterwards (net/http
// cancels a request's context when a background read hits the deadline).
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if max > 0 && r.ContentLength > max {
			tooLarge(w, max)
			return
		}
		rc := http.NewResponseController(w)
		if r.Body == nil || r.Body == http.NoBody {
			_ = rc.SetReadDeadline(time.Time{})
		} else {
			if max > 0 {
				r.Body = http.MaxBytesReader(w, r.Body, max)
			}
			r.Body = &onEOF{ReadCloser: r.Body, f: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		next.ServeHTTP(w, r)
	})
}

// tooLarge answers 413 with a JSON-RPC error, which MCP clients show.
func tooLarge(w http.ResponseWriter, max int64) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body exceeds %d bytes (tools.mcp.gateway.max_request_mb)"}}`+"\n", max)
}

// onEOF calls f once, when its reader reaches the end.
type onEOF struct {
	io.ReadCloser
	f    func()
	done bool
}

func (r *onEOF) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err == io.EOF && !r.done {
		r.done = true
		r.f()
	}
	return n, err
}
