package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// callbackPath is the path of the loopback redirect URI.
const callbackPath = "/callback"

// ErrStateMismatch is wrapped by the error of an authorization response
// whose state is not the one sent: it may be forged (cross-site request
// forgery) and is refused.
var ErrStateMismatch = errors.New("the authorization response's state does not match the request's")

// Callback is a loopback HTTP server on 127.0.0.1 that receives one
// authorization response (the browser's redirect) and then stops.
type Callback struct {
	ln    net.Listener
	srv   *http.Server
	state string

	once   sync.Once
	result chan callbackResult // buffered; the first response only
	done   chan struct{}       // closed when the server has stopped
}

type callbackResult struct {
	code string
	err  error
}

// ListenCallback listens on 127.0.0.1:port (0: a free port the system
// picks). Nothing is served until Start.
func ListenCallback(port int) (*Callback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, &StepError{Step: "listen for the browser's redirect", Err: fmt.Errorf(
			"%w (set oauth.callback_port to a free port, or remove it to use any free port)", err)}
	}
	return &Callback{ln: ln, result: make(chan callbackResult, 1), done: make(chan struct{})}, nil
}

// RedirectURI is the URL the authorization server sends the browser back to.
func (cb *Callback) RedirectURI() string {
	return "http://" + cb.ln.Addr().String() + callbackPath
}

// Start serves until the first authorization response for state arrives
// (or Close). Requests for other paths, or without any response
// parameter, get 404 and are not counted.
func (cb *Callback) Start(state string) {
	cb.state = state
	cb.srv = &http.Server{Handler: http.HandlerFunc(cb.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(cb.done)
		_ = cb.srv.Serve(cb.ln) // ends with Close
	}()
}

// Wait returns the code of the first response, or ctx's error.
func (cb *Callback) Wait(ctx context.Context) (string, error) {
	select {
	case r := <-cb.result:
		return r.code, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Close stops the server (and waits for it) and releases the port.
func (cb *Callback) Close() error {
	if cb.srv == nil {
		return cb.ln.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := cb.srv.Shutdown(ctx)
	<-cb.done
	return err
}

func (cb *Callback) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.URL.Path != callbackPath || (!q.Has("code") && !q.Has("error") && !q.Has("state")) {
		http.NotFound(w, r)
		return
	}
	first := false
	var res callbackResult
	cb.once.Do(func() {
		first = true
		res.code, res.err = codeFrom(q, cb.state)
		cb.result <- res
	})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	switch {
	case !first:
		http.Error(w, "plughost already received the login response; you can close this window.", http.StatusGone)
	case res.err != nil:
		http.Error(w, "plughost login failed: "+res.err.Error()+"\nSee the terminal for details.", http.StatusBadRequest)
	default:
		fmt.Fprintln(w, "plughost is logged in. You can close this window.")
	}
	if first {
		_ = cb.ln.Close() // one response only: stop accepting connections
	}
}

// ParseRedirect reads the authorization response from the URL the browser
// was sent to, as the user pasted it (the --no-browser flow).
func ParseRedirect(pasted, state string) (string, error) {
	pasted = strings.TrimSpace(pasted)
	u, err := url.Parse(pasted)
	if err != nil || (u.RawQuery == "" && !strings.Contains(pasted, "=")) {
		return "", errors.New("that is not the URL the browser was sent to (it should contain code=… and state=…)")
	}
	q := u.Query()
	if u.RawQuery == "" { // only the query was pasted
		q, _ = url.ParseQuery(strings.TrimPrefix(pasted, "?"))
	}
	return codeFrom(q, state)
}

// codeFrom checks one authorization response (RFC 6749 §4.1.2).
func codeFrom(q url.Values, state string) (string, error) {
	if e := q.Get("error"); e != "" {
		msg := "the authorization server refused the login: " + e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		return "", errors.New(msg)
	}
	if q.Get("state") != state {
		return "", fmt.Errorf("%w: refusing it (it may be forged); log in again", ErrStateMismatch)
	}
	code := q.Get("code")
	if code == "" {
		return "", errors.New("the authorization response has no code")
	}
	return code, nil
}
