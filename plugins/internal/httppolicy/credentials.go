package httppolicy

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/pluginapi"
)

// bearer puts the credentials' Authorization value on the server's requests
// and reports the server's refusals to them: a 401, or a 403 whose challenge
// says insufficient_scope. When the credentials answer a refusal with a new
// value (a refreshed token), the request is sent once more with it; when
// they answer with an error (the user must log in), the request fails with
// that error, a *pluginapi.Error of KindUnauthorized. Safe for concurrent use.
type bearer struct {
	creds pluginapi.Credentials
	now   func() time.Time

	mu     sync.Mutex
	cached string    // the last value the credentials gave …
	until  time.Time // … reusable without asking until then
}

// roundTrip sends req with the credentials' value through send, at most twice.
func (b *bearer) roundTrip(req *http.Request, send func(*http.Request, string) (*http.Response, error)) (*http.Response, error) {
	value, err := b.value(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := send(req, value)
	if err != nil || !refused(resp) {
		return resp, err
	}
	next, err := b.rejected(req, resp, value)
	if err != nil {
		return nil, err
	}
	retry, err := rewind(req)
	if err != nil {
		return nil, err
	}
	resp, err = send(retry, next.Value)
	if err != nil || !refused(resp) {
		return resp, err
	}
	// Refused again with the new value: tell the credentials (which record
	// what the server wants) and stop here.
	if _, err := b.rejected(req, resp, next.Value); err != nil {
		return nil, err
	}
	return nil, pluginapi.Errorf("send", pluginapi.KindUnauthorized,
		"the server refused the request (HTTP %d) with fresh credentials too", resp.StatusCode)
}

// value returns the Authorization value to send: the cached one while it
// may be reused, else the credentials' current one.
func (b *bearer) value(req *http.Request) (string, error) {
	b.mu.Lock()
	if b.now().Before(b.until) {
		v := b.cached
		b.mu.Unlock()
		return v, nil
	}
	b.mu.Unlock()
	a, err := b.creds.Authorization(req.Context())
	if err != nil {
		return "", err
	}
	b.remember(a)
	return a.Value, nil
}

func (b *bearer) remember(a pluginapi.Authorization) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cached, b.until = a.Value, b.now().Add(a.CacheFor)
}

// rejected reports a refusal and returns the value to retry with. resp's
// body is closed.
func (b *bearer) rejected(req *http.Request, resp *http.Response, sent string) (pluginapi.Authorization, error) {
	rej := pluginapi.Rejection{Status: resp.StatusCode, WWWAuthenticate: resp.Header.Values("WWW-Authenticate"), Sent: sent}
	drain(resp)
	b.mu.Lock()
	if b.cached == sent {
		b.until = time.Time{} // never reuse a refused value
	}
	b.mu.Unlock()
	next, err := b.creds.Rejected(req.Context(), rej)
	if err != nil {
		return next, err
	}
	if next.Value == "" || next.Value == sent {
		return next, pluginapi.Errorf("send", pluginapi.KindUnauthorized,
			"the server refused the request (HTTP %d) and there are no other credentials to try", resp.StatusCode)
	}
	b.remember(next)
	return next, nil
}

// refused reports a response that says the credentials do not do: 401, or
// 403 for insufficient scope (step-up). Any other 403 is the server's
// answer to the request itself and goes back unchanged.
func refused(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return true
	case http.StatusForbidden:
		for _, v := range resp.Header.Values("WWW-Authenticate") {
			if strings.Contains(strings.ToLower(v), "insufficient_scope") {
				return true
			}
		}
	}
	return false
}

// errNoRewind is why a refused request with a one-shot body is not re-sent.
var errNoRewind = errors.New("the request body cannot be sent a second time")

// rewind returns a copy of req with a fresh body, to send it again.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	if req.GetBody == nil {
		return nil, pluginapi.Errorf("send", pluginapi.KindUnauthorized, "re-send with new credentials: %w", errNoRewind)
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, pluginapi.Errorf("send", pluginapi.KindInternal, "re-send with new credentials: %w", err)
	}
	r.Body = body
	return r, nil
}

// drain reads a little of a refused response (so the connection can be
// reused) and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// closeBody closes the body of a request that is not sent, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}
