package httppolicy

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/plughost/plughost/pluginapi"
)

// Policy is the HTTP behaviour of one remote server connection.
type Policy struct {
	// ServerURL is the configured endpoint (the server config's "url").
	ServerURL string
	// Headers are the configured headers (the server config's "headers").
	// Their values are secrets: they are never logged or put in errors.
	Headers map[string]string
	// Base sends the requests once the policy has shaped them.
	// Nil means a clone of http.DefaultTransport.
	Base http.RoundTripper
	// Credentials, when set, supplies the Authorization header of requests
	// to the server's origin (OAuth tokens the host holds), ahead of any
	// configured header, and hears about the server's refusals.
	Credentials pluginapi.Credentials
}

// ConfigError reports an invalid Policy. Field is the server config field at
// fault ("url", "headers" or "headers.<Name>"); Reason never contains a
// header value.
type ConfigError struct {
	Field  string
	Reason string
}

// Error returns "<field>: <reason>".
func (e *ConfigError) Error() string { return e.Field + ": " + e.Reason }

// NewClient returns the *http.Client for one server connection. It applies the
// configured headers to the server's origin only, lets protocol headers win,
// and refuses every redirect but a same-host http → https upgrade. It has no
// Timeout, since that would also cut long-lived SSE streams: bound calls with
// their context. NewClient opens no connection, so it doubles as validation;
// an invalid Policy yields a *ConfigError.
func NewClient(p Policy) (*http.Client, error) {
	u, err := parseServerURL(p.ServerURL)
	if err != nil {
		return nil, err
	}
	headers, err := compileHeaders(p.Headers)
	if err != nil {
		return nil, err
	}
	base := p.Base
	if base == nil {
		base = defaultBase()
	}
	t := &headerTransport{base: base, origins: serverOrigins(u), headers: headers}
	if p.Credentials != nil {
		t.bearer = &bearer{creds: p.Credentials, now: time.Now}
	}
	return &http.Client{
		Transport:     t,
		CheckRedirect: checkRedirect,
	}, nil
}

func defaultBase() http.RoundTripper {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return t.Clone()
	}
	return http.DefaultTransport
}

func parseServerURL(raw string) (*url.URL, error) {
	bad := func(format string, args ...any) error {
		return &ConfigError{Field: "url", Reason: fmt.Sprintf(format, args...)}
	}
	if strings.TrimSpace(raw) == "" {
		return nil, bad("is required for sse and http servers")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, which may carry credentials.
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return nil, bad("is not a valid URL: %v", err)
	}
	switch {
	case u.Scheme == "":
		return nil, bad("must be absolute, starting with http:// or https://")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, bad("must start with http:// or https:// (got scheme %q)", u.Scheme)
	case u.Hostname() == "":
		return nil, bad("has no host")
	}
	return u, nil
}

// compileHeaders validates the configured headers and returns them sorted by
// canonical name, so that requests are built deterministically.
func compileHeaders(configured map[string]string) ([]header, error) {
	names := make([]string, 0, len(configured))
	for name := range configured {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := make(map[string]string, len(names))
	out := make([]header, 0, len(names))
	for _, name := range names {
		if err := checkHeader(name, configured[name]); err != nil {
			return nil, err
		}
		canon := http.CanonicalHeaderKey(name)
		if prev, dup := seen[canon]; dup {
			return nil, &ConfigError{Field: "headers", Reason: fmt.Sprintf(
				"%q and %q name the same header (header names are case-insensitive)", prev, name)}
		}
		seen[canon] = name
		out = append(out, header{name: canon, value: configured[name], protocol: IsProtocolHeader(canon), session: IsSessionHeader(canon)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func checkHeader(name, value string) error {
	if name == "" {
		return &ConfigError{Field: "headers", Reason: "has an empty header name"}
	}
	if !validHeaderName(name) {
		return &ConfigError{Field: "headers", Reason: fmt.Sprintf(
			"%q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)}
	}
	field := "headers." + name
	if managedByClient(name) {
		return &ConfigError{Field: field, Reason: "is set by the HTTP client itself and cannot be configured"}
	}
	if !validHeaderValue(value) {
		return &ConfigError{Field: field, Reason: "value contains a control character such as a newline"}
	}
	return nil
}

// validHeaderName reports whether name is an RFC 9110 token.
func validHeaderName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue rejects control characters (bar tab), which would let a
// value split the request or be refused by net/http at send time.
func validHeaderValue(value string) bool {
	for i := 0; i < len(value); i++ {
		if c := value[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// managedByClient reports framing and hop-by-hop headers, which net/http
// writes itself (a configured value would be ignored or corrupt the request).
func managedByClient(name string) bool {
	switch strings.ToLower(name) {
	case "host", "content-length", "transfer-encoding", "connection", "keep-alive",
		"proxy-connection", "te", "trailer", "upgrade":
		return true
	}
	return false
}
