package resourceuri

import (
	"fmt"
	"regexp"
	"strings"
)

// Template is a compiled URI template (RFC 6570): Match tells whether a URI
// could have been expanded from it. Safe for concurrent use.
type Template struct {
	raw string
	re  *regexp.Regexp
}

// CompileTemplate compiles a URI template. Every expression matches what
// its operator can expand to: a simple {var} one path segment's worth of
// characters, {+var} and {#var} anything, {/var}, {.var}, {;var} repeated
// prefixed segments, {?var} and {&var} a query.
func CompileTemplate(t string) (*Template, error) {
	var b strings.Builder
	b.WriteString("^")
	rest := t
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:open]))
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("URI template %q: unclosed expression", t)
		}
		expr := rest[open+1 : open+end]
		if expr == "" {
			return nil, fmt.Errorf("URI template %q: empty expression", t)
		}
		b.WriteString(expressionPattern(expr[0]))
		rest = rest[open+end+1:]
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("URI template %q: %w", t, err)
	}
	return &Template{raw: t, re: re}, nil
}

// expressionPattern is the regular expression an expression with operator
// op (its first character) expands to.
func expressionPattern(op byte) string {
	switch op {
	case '+', '#':
		return `.*`
	case '/':
		return `(?:/[^/?#]*)*`
	case '.':
		return `(?:\.[^/?#.]*)*`
	case ';':
		return `(?:;[^/?#;]*)*`
	case '?':
		return `(?:\?[^#]*)?`
	case '&':
		return `(?:&[^#]*)?`
	}
	return `[^/?#]*`
}

// Match reports whether uri could be an expansion of the template.
func (t *Template) Match(uri string) bool { return t.re.MatchString(uri) }

// String returns the template as written.
func (t *Template) String() string { return t.raw }
