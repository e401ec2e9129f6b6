package childenv

import (
	"fmt"
	"io"
	"strings"
)

// Reasons a line of an env file is rejected. They are fixed texts so that an
// error can never carry a (possibly secret) value.
const (
	reasonNoEquals      = `missing "=": write KEY=value (a comment line starts with #)`
	reasonNoKey         = `missing variable name before "=": write KEY=value`
	reasonBadKey        = `invalid variable name: use letters, digits and underscores, not starting with a digit`
	reasonUnclosedQuote = `value starts with a quote but does not end with the same quote: ` +
		`a value spans one line, and nothing may follow the closing quote (not even a # comment)`
	reasonNUL = `value contains a NUL byte, which no environment can hold: remove it`
)

// ParseError reports a line of an env file that cannot be read. It names the
// file, the line and, when it is a valid name, the variable — never the value.
type ParseError struct {
	// Name is the file name given to ParseEnvFile.
	Name string
	// Line is the 1-based line number.
	Line int
	// Key is the variable name when it is valid, else "".
	Key string
	// Reason says what is wrong and how to fix it.
	Reason string
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("env_file %s line %d: %s: %s", e.Name, e.Line, e.Key, e.Reason)
	}
	return fmt.Sprintf("env_file %s line %d: %s", e.Name, e.Line, e.Reason)
}

// ParseEnvFile reads an env file: one KEY=value per line. name is used in
// error messages only.
//
// Blank lines and lines whose first non-space character is '#' are skipped.
// A line may start with "export ". Spaces around the key and around the value
// are trimmed; the key must match [A-Za-z_][A-Za-z0-9_]*. A value wrapped in
// matching single or double quotes loses those two quotes and nothing else:
// there are no escape sequences, no variable expansion, no inline comments and
// no multi-line values, so `K="a\nb"` is the four characters a\nb and
// `K=v # note` is the value "v # note". CRLF line endings and a leading UTF-8
// byte order mark are accepted. A later line for the same key wins.
//
// A bad line yields a *ParseError; read errors are returned wrapped.
func ParseEnvFile(name string, r io.Reader) (map[string]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("env_file %s: %w", name, err)
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	vars := make(map[string]string)
	for i, line := range strings.Split(text, "\n") {
		key, value, ok, reason := parseLine(line)
		if reason != "" {
			return nil, &ParseError{Name: name, Line: i + 1, Key: key, Reason: reason}
		}
		if ok {
			vars[key] = value
		}
	}
	return vars, nil
}

// parseLine parses one line. ok is false for blank and comment lines. On a
// bad line reason is set, and key is set only when it is a valid name.
func parseLine(line string) (key, value string, ok bool, reason string) {
	line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
	if line == "" || line[0] == '#' {
		return "", "", false, ""
	}
	if rest, found := cutExport(line); found {
		line = rest
	}
	k, v, found := strings.Cut(line, "=")
	if !found {
		return "", "", false, reasonNoEquals
	}
	k = strings.TrimSpace(k)
	switch {
	case k == "":
		return "", "", false, reasonNoKey
	case !validKey(k):
		return "", "", false, reasonBadKey
	}
	v, reason = parseValue(v)
	if reason != "" {
		return k, "", false, reason
	}
	return k, v, true, ""
}

// cutExport removes a leading "export" keyword followed by blanks.
func cutExport(line string) (string, bool) {
	rest, found := strings.CutPrefix(line, "export")
	if !found || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return line, false
	}
	return strings.TrimLeft(rest, " \t"), true
}

// parseValue trims v and strips one pair of matching outer quotes.
func parseValue(v string) (string, string) {
	v = strings.TrimSpace(v)
	if strings.IndexByte(v, 0) >= 0 {
		return "", reasonNUL
	}
	if v == "" || (v[0] != '"' && v[0] != '\'') {
		return v, ""
	}
	if len(v) < 2 || v[len(v)-1] != v[0] {
		return "", reasonUnclosedQuote
	}
	return v[1 : len(v)-1], ""
}

// validKey reports whether k matches [A-Za-z_][A-Za-z0-9_]*.
func validKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return k != ""
}
