package oauth

import (
	"strings"
)

// Challenge is what a server's Bearer WWW-Authenticate challenge says
// (RFC 6750 §3, RFC 9728 §5.1).
type Challenge struct {
	// Error is the error code: "invalid_token", "insufficient_scope", …
	Error string
	// Description is the error_description, for messages.
	Description string
	// Scopes are the scopes the server asks for (the scope parameter).
	Scopes []string
	// ResourceMetadata is the URL of the protected resource metadata.
	ResourceMetadata string
}

// InsufficientScope reports a step-up challenge: the token is good but
// lacks scopes.
func (c Challenge) InsufficientScope() bool { return c.Error == "insufficient_scope" }

// ParseChallenge reads the Bearer challenge among WWW-Authenticate header
// values. Other schemes are skipped; a malformed value yields what could be
// read before the fault.
func ParseChallenge(values []string) Challenge {
	var c Challenge
	for _, v := range values {
		for _, ch := range parseChallenges(v) {
			if !strings.EqualFold(ch.scheme, "Bearer") {
				continue
			}
			p := ch.params
			c.Error, c.Description, c.ResourceMetadata = p["error"], p["error_description"], p["resource_metadata"]
			if scope := strings.Fields(p["scope"]); len(scope) > 0 {
				c.Scopes = scope
			}
			return c
		}
	}
	return c
}

// challenge is one auth-scheme with its parameters (RFC 9110 §11.6.1).
type challenge struct {
	scheme string
	params map[string]string // lower-case names
}

// parseChallenges splits one header value into its challenges:
// `Bearer a="x", b=y, Basic realm="r"` is two.
func parseChallenges(s string) []challenge {
	var out []challenge
	p := &headerParser{s: s}
	for {
		p.skip(" \t,")
		if p.done() {
			return out
		}
		name := p.token()
		if name == "" {
			return out // not a token: give up on the rest
		}
		p.skip(" \t")
		if p.peek() == '=' && p.isToken68() {
			p.skip("=") // token68 credentials ("abc=="), not a parameter
			continue
		}
		if p.peek() == '=' && len(out) > 0 {
			p.pos++
			p.skip(" \t")
			out[len(out)-1].params[strings.ToLower(name)] = p.value()
			continue
		}
		out = append(out, challenge{scheme: name, params: map[string]string{}})
	}
}

// headerParser walks a header value.
type headerParser struct {
	s   string
	pos int
}

func (p *headerParser) done() bool { return p.pos >= len(p.s) }

func (p *headerParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.pos]
}

func (p *headerParser) skip(chars string) {
	for !p.done() && strings.IndexByte(chars, p.s[p.pos]) >= 0 {
		p.pos++
	}
}

// isToken68 reports whether the "=" at pos ends a token68 credential
// ("abc==") rather than starting a parameter value.
func (p *headerParser) isToken68() bool {
	rest := strings.TrimLeft(p.s[p.pos:], "=")
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || rest[0] == ','
}

func (p *headerParser) token() string {
	start := p.pos
	for !p.done() && isTokenChar(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// value reads a quoted-string (with backslash escapes) or a token.
func (p *headerParser) value() string {
	if p.peek() != '"' {
		return p.token()
	}
	p.pos++
	var b strings.Builder
	for !p.done() {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.pos])
			p.pos++
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isTokenChar reports an RFC 9110 tchar.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/", c) >= 0
}
