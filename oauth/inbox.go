package oauth

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"sync"
)

// Inbox receives authorization responses on a route a front end already
// serves (plughost serve's /oauth/callback on its own listener), for any
// number of logins in flight: each login takes a Receiver, whose state
// parameter routes the browser's redirect to it. A response whose state is
// not one in flight is refused (it may be forged). It is an http.Handler;
// serve it without the API token (the browser arrives by redirect). Safe
// for concurrent use.
type Inbox struct {
	redirectURI string

	mu      sync.Mutex
	pending map[string]*Receiver // by state
}

// NewInbox returns an inbox whose redirect URI is redirectURI (the route's
// full URL, e.g. http://127.0.0.1:8765/oauth/callback).
func NewInbox(redirectURI string) *Inbox {
	return &Inbox{redirectURI: redirectURI, pending: map[string]*Receiver{}}
}

// Receiver returns a receiver for one login.
func (in *Inbox) Receiver() *Receiver {
	return &Receiver{in: in, result: make(chan callbackResult, 1)}
}

// Receiver is one login's end of an Inbox (it implements the login's
// callback: RedirectURI, Start, Wait, Close).
type Receiver struct {
	in     *Inbox
	state  string
	result chan callbackResult // buffered; the first response only
}

// RedirectURI is the inbox's redirect URI.
func (r *Receiver) RedirectURI() string { return r.in.redirectURI }

// Start begins accepting the response carrying state.
func (r *Receiver) Start(state string) {
	r.state = state
	r.in.mu.Lock()
	r.in.pending[state] = r
	r.in.mu.Unlock()
}

// Wait returns the code of the response, or ctx's error.
func (r *Receiver) Wait(ctx context.Context) (string, error) {
	select {
	case res := <-r.result:
		return res.code, res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Close stops accepting responses for this login.
func (r *Receiver) Close() error {
	r.in.mu.Lock()
	if r.in.pending[r.state] == r {
		delete(r.in.pending, r.state)
	}
	r.in.mu.Unlock()
	return nil
}

// ServeHTTP takes one authorization response: the login whose state it
// carries gets it (once), and the browser a small page saying whether to
// close the tab.
func (in *Inbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	in.mu.Lock()
	rcv := in.pending[state]
	if rcv != nil {
		delete(in.pending, state) // one response per login
	}
	in.mu.Unlock()
	if rcv == nil {
		page(w, http.StatusBadRequest, "Login not completed",
			fmt.Sprintf("%v: no login with this state is in progress (it may have finished, expired, or the link may be forged). Start the login again from the dashboard.", ErrStateMismatch))
		return
	}
	var res callbackResult
	res.code, res.err = codeFrom(q, rcv.state)
	rcv.result <- res
	if res.err != nil {
		page(w, http.StatusBadRequest, "Login failed", "plughost login failed: "+res.err.Error())
		return
	}
	page(w, http.StatusOK, "Logged in", "plughost received the login. You can close this tab.")
}

// page writes a small HTML page.
func page(w http.ResponseWriter, status int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><html lang=en><meta charset=utf-8><title>plughost: %s</title>"+
		"<body style=\"font-family:sans-serif;margin:3em\"><h1>%s</h1><p>%s</p></body></html>\n",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
}
