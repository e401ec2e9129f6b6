package frontdoor

import (
	"net/http"
	"time"
)

// refusalLinger is how long a refused request's connection stays open for
// the rest of a body already on its way: long enough to take in a small
// body a client sent with its headers (closing with unread data resets the
// connection, and the client may then lose the answer), far too short for
// a client trickling its body to hold the connection.
const refusalLinger = 100 * time.Millisecond

// refuse answers a request the door will not serve — no token, a wrong
// one, a token in the URL, a foreign page — and ends its connection
// without reading its body. Otherwise net/http, to keep the connection
// alive, would read the rest of the body before writing the answer, and a
// client trickling one byte at a time would hold the connection for the
// whole read timeout.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, status)
	rc := http.NewResponseController(w)
	_ = rc.Flush()                                        // the answer goes out now, whatever follows
	_ = rc.SetReadDeadline(time.Now().Add(refusalLinger)) // not supported (a test recorder): nothing to cut
}
