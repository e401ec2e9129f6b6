package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ServerNameMaxLen is the longest server name, in characters.
const ServerNameMaxLen = 64

// ServerNamePattern is the server-name rule as a regular expression without
// anchors, valid alike in Go (RE2) and in JavaScript with the "u" or "v"
// flag (an HTML pattern attribute): ASCII letters, digits, "_", "-" and ".",
// starting with a letter or digit, 1 to ServerNameMaxLen characters.
const ServerNamePattern = `[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}`

// ServerNameRule says the rule in words, for help texts and messages.
const ServerNameRule = `use only letters, digits, "_", "-" and "." (ASCII), starting with a letter or digit, at most 64 characters`

// The rule keeps a name usable everywhere plughost puts one: a JSON key, a
// URL path segment (/servers/<name>/mcp), a file name (OAuth grants), a
// shell word and the mcp_<server>_<tool> names ("." aside, which they turn
// into "_"). Dots stay allowed because existing configs use them
// ("my.server").

// CheckServerName returns what is wrong with name as a server name and how to
// fix it (with a name that would do), or "" when name follows the rule.
func CheckServerName(name string) string {
	var what string
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return "the server name is empty; give the server a name: " + ServerNameRule
	case n > ServerNameMaxLen:
		what = fmt.Sprintf("is %d characters long", n)
	case !startsName(name):
		r, _ := utf8.DecodeRuneInString(name)
		what = fmt.Sprintf("starts with %q", string(r))
	default:
		i := strings.IndexFunc(name, func(r rune) bool { return r >= utf8.RuneSelf || !nameByte(byte(r)) })
		if i < 0 {
			return ""
		}
		r, _ := utf8.DecodeRuneInString(name[i:])
		what = fmt.Sprintf("contains %q", string(r))
	}
	return fmt.Sprintf("the server name %q %s; rename the server (e.g. %q): %s", trunc(name), what, SuggestServerName(name), ServerNameRule)
}

// SuggestServerName returns a name that follows the rule, made from name:
// every run of other characters becomes "-", leading characters that
// cannot start a name are dropped, and the result is cut to the maximum
// length ("server" when nothing is left).
func SuggestServerName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		switch {
		case r < utf8.RuneSelf && nameByte(byte(r)):
			if b.Len() == 0 && !nameStart(byte(r)) {
				continue
			}
			b.WriteRune(r)
			dash = false
		case b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	s := b.String()
	if len(s) > ServerNameMaxLen {
		s = s[:ServerNameMaxLen]
	}
	if s = strings.TrimRight(s, "-"); s == "" {
		return "server"
	}
	return s
}

// startsName reports whether name's first character may start a server name.
func startsName(name string) bool { return name != "" && nameStart(name[0]) }

// nameStart reports whether c may start a server name.
func nameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// nameByte reports whether c may appear in a server name.
func nameByte(c byte) bool { return nameStart(c) || c == '_' || c == '-' || c == '.' }
