package frontdoor

import (
	"fmt"
	"net/http"
)

// limitBody caps request bodies at max bytes: a declared length over it is
// refused at once with 413, a longer chunked body fails the handler's read
// (the gateway then answers 413 itself). The server's ReadTimeout bounds
// reading headers and body; once the body is read, net/http lifts the
// deadline, so a long call or an event stream is not cut by it.
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if max > 0 && r.ContentLength > max {
			tooLarge(w, max)
			return
		}
		if max > 0 && r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, max)
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
