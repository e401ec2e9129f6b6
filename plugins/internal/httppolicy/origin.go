package httppolicy

import (
	"net/url"
	"strings"
)

// origin is the scheme, host and effective port of a URL (RFC 6454).
type origin struct {
	scheme, host, port string
}

func originOf(u *url.URL) origin {
	return origin{
		scheme: strings.ToLower(u.Scheme),
		host:   strings.ToLower(u.Hostname()),
		port:   effectivePort(u),
	}
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// upgradeOf returns the https origin an http origin may be upgraded to: the
// same host and port, with the default port 80 becoming 443.
func upgradeOf(o origin) origin {
	up := origin{scheme: "https", host: o.host, port: o.port}
	if o.port == "80" {
		up.port = "443"
	}
	return up
}

// serverOrigins lists the origins that receive the configured headers: the
// configured URL's own and, for plain http, its https upgrade — the only place
// a followed redirect can lead, and strictly safer than the original.
func serverOrigins(u *url.URL) []origin {
	o := originOf(u)
	if o.scheme == "http" {
		return []origin{o, upgradeOf(o)}
	}
	return []origin{o}
}

// displayURL renders a URL for an error message without the secrets it may
// carry: user info and query values are masked, the fragment is dropped.
func displayURL(u *url.URL) string {
	if u == nil {
		return "<nil>"
	}
	c := *u
	if c.User != nil {
		c.User = url.User("xxxxx")
	}
	if c.RawQuery != "" {
		c.RawQuery = "xxxxx"
	}
	c.ForceQuery = false
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// Redact renders a URL string for messages and logs with its user info and
// query values masked (they often carry credentials); an unparsable URL gives
// a placeholder rather than its text.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<invalid url>"
	}
	return displayURL(u)
}
