package httppolicy

import (
	"fmt"
	"net/http"
	"net/url"
)

// maxRedirects is how many redirects one request may follow: the single
// http → https upgrade.
const maxRedirects = 1

// RedirectError reports a redirect that was refused instead of followed.
// From and To are the URLs with user info and query values masked; Reason
// says why the redirect was refused. The client sends no request to To.
type RedirectError struct {
	From   string
	To     string
	Reason string
}

// Error names both URLs and the reason.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("refused redirect from %s to %s: %s "+
		"(only an http→https redirect to the same host and port is followed; configure the final URL instead)",
		e.From, e.To, e.Reason)
}

// checkRedirect is the http.Client.CheckRedirect of every policy client.
func checkRedirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1]
	reason := redirectRefusal(prev.URL, req.URL)
	switch {
	case len(via) > maxRedirects:
		reason = fmt.Sprintf("at most %d redirect is followed", maxRedirects)
	case reason == "" && req.Method != prev.Method:
		// 301/302/303 turn a POST into a body-less GET; following it would
		// send the server an empty request and fail in a confusing way.
		reason = fmt.Sprintf("status %d would turn %s into %s and drop the body (the server should answer 307 or 308)",
			statusOf(req), prev.Method, req.Method)
	}
	if reason == "" {
		return nil
	}
	return &RedirectError{From: displayURL(prev.URL), To: displayURL(req.URL), Reason: reason}
}

// redirectRefusal returns why a redirect from → to is refused, or "" when it
// is the allowed upgrade.
func redirectRefusal(from, to *url.URL) string {
	f, t := originOf(from), originOf(to)
	switch {
	case t.scheme != "http" && t.scheme != "https":
		return fmt.Sprintf("scheme %q is not http or https", t.scheme)
	case f.scheme == "https" && t.scheme == "http":
		return "it downgrades https to plain http"
	case f.host != t.host:
		return "it leads to another host"
	case f.scheme == "http" && t.scheme == "https":
		if t == upgradeOf(f) {
			return ""
		}
		return "it leads to another port"
	case f != t:
		return "it leads to another port"
	default:
		return "it stays on the same scheme and origin"
	}
}

func statusOf(req *http.Request) int {
	if req.Response != nil {
		return req.Response.StatusCode
	}
	return 0
}
