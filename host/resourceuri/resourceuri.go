// Package resourceuri is the reversible per-server form of resource URIs
// that the gateway uses when a URI alone does not say which server it
// belongs to, and a matcher for URI templates (RFC 6570) that tells which
// server's template a URI was expanded from.
//
// The per-server form is
//
//	plughost://<server>/<uri>
//
// where <server> is the configured server name with every byte outside
// [A-Za-z0-9._~-] percent-encoded, and <uri> is the server's URI exactly as
// the server wrote it. Decoding strips the prefix, so a template in this
// form, once expanded by a client, decodes to the URI the server's own
// template expands to.
package resourceuri

import (
	"net/url"
	"strings"
)

// Prefix starts every URI in the per-server form.
const Prefix = "plughost://"

// Encode returns the per-server form of server's uri (or URI template).
func Encode(server, uri string) string { return Prefix + EscapeServer(server) + "/" + uri }

// EscapeServer returns a server name with every byte outside
// [A-Za-z0-9._~-] percent-encoded (so it holds no "/" or ":");
// url.PathUnescape reverses it.
func EscapeServer(server string) string {
	var b strings.Builder
	b.Grow(len(server))
	for i := 0; i < len(server); i++ {
		c := server[i]
		if unreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte("0123456789ABCDEF"[c>>4])
		b.WriteByte("0123456789ABCDEF"[c&15])
	}
	return b.String()
}

// Decode splits a URI in the per-server form into the server and the
// server's own URI; ok is false for any other URI.
func Decode(s string) (server, uri string, ok bool) {
	rest, found := strings.CutPrefix(s, Prefix)
	if !found {
		return "", "", false
	}
	enc, uri, found := strings.Cut(rest, "/")
	if !found || enc == "" {
		return "", "", false
	}
	server, err := url.PathUnescape(enc)
	if err != nil {
		return "", "", false
	}
	return server, uri, true
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
