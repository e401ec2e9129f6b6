package secret

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// secretNameParts are the name fragments that mark a query parameter, an
// environment variable or a header as holding a secret (compared in lower
// case, anywhere in the name): api_key, X-Api-Key, access_token, client_secret,
// password, passwd, pwd, auth, Authorization, sig, signature,
// X-Amz-Credential, session_id, cookie, jwt, bearer, private_key.
var secretNameParts = []string{
	"key", "token", "secret", "pass", "pwd", "auth", "sig", "credential",
	"session", "cookie", "jwt", "bearer", "private",
}

// secretNames are names that mark a secret only when they are the whole name
// (an OAuth authorization code, a one-time code).
var secretNames = []string{"code", "otp"}

// IsSecretName reports whether a parameter, variable or header name says its
// value is a secret: it contains one of key, token, secret, pass, pwd, auth,
// sig, credential, session, cookie, jwt, bearer or private, or it is code or
// otp (case-insensitive). The rule errs on the side of masking.
func IsSecretName(name string) bool {
	n := strings.ToLower(name)
	for _, part := range secretNameParts {
		if strings.Contains(n, part) {
			return true
		}
	}
	for _, whole := range secretNames {
		if n == whole {
			return true
		}
	}
	return false
}

// MaskURL masks the secret parts of a URL and keeps the rest as written:
// the password of the userinfo (user:****@host), or the whole userinfo when
// it has no password (****@host: a lone user name is often a token), and the
// value of every query or fragment parameter whose name IsSecretName
// (?api_key=****&page=2). Text that is not a URL comes back unchanged.
func MaskURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !validScheme(scheme) {
		return raw
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, _, hasPassword := strings.Cut(authority[:at], ":")
		if hasPassword {
			authority = user + ":" + Masked + authority[at:]
		} else {
			authority = Masked + authority[at:]
		}
	}
	beforeFragment, fragment, hasFragment := strings.Cut(tail, "#") // '#' ends any query
	path, query, hasQuery := strings.Cut(beforeFragment, "?")
	out := scheme + "://" + authority + path
	if hasQuery {
		out += "?" + maskParams(query)
	}
	if hasFragment {
		out += "#" + maskParams(fragment)
	}
	return out
}

func validScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// maskParams masks the values of secret-named parameters in a query or
// fragment ("a=1&api_key=x"), keeping everything else byte for byte.
func maskParams(q string) string {
	if !strings.Contains(q, "=") {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		name, value, ok := strings.Cut(p, "=")
		if ok && value != "" && IsSecretName(unescape(name)) {
			parts[i] = name + "=" + Masked
		}
	}
	return strings.Join(parts, "&")
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// urlSecrets returns the secret values a URL carries, as written and
// decoded, each with the name it is configured under (for the length rule).
func urlSecrets(raw string) [][2]string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out [][2]string
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, [2]string{"password", pw})
		} else {
			out = append(out, [2]string{"user", u.User.Username()})
		}
	}
	for _, q := range []string{u.RawQuery, u.EscapedFragment()} {
		for p := range strings.SplitSeq(q, "&") {
			name, value, ok := strings.Cut(p, "=")
			if ok && value != "" && IsSecretName(unescape(name)) {
				out = append(out, [2]string{name, value}, [2]string{name, unescape(value)})
			}
		}
	}
	return out
}

// urlsInText finds URLs in free text: a scheme, "://", and everything up to
// a space, a quote or an angle bracket.
var urlsInText = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")

// MaskURLs applies MaskURL to every URL in text.
func MaskURLs(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	return urlsInText.ReplaceAllStringFunc(text, MaskURL)
}

// URL is a URL that may carry credentials (user:password@ or a secret query
// parameter). Like String, it shows itself masked in every textual form (by
// MaskURL), and only Reveal returns it as written. The zero value is the
// empty URL.
type URL string

// Reveal returns the URL as written. Call it only where the URL is used.
func (u URL) Reveal() string { return string(u) }

// String returns the URL with its secrets masked.
func (u URL) String() string { return MaskURL(string(u)) }

// GoString returns a Go-syntax representation with the secrets masked.
func (u URL) GoString() string { return "secret.URL(" + strconv.Quote(u.String()) + ")" }

// Format implements fmt.Formatter: every verb prints the masked URL.
func (u URL) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, u.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), u.String())
}

// MarshalJSON encodes the masked URL as a JSON string.
func (u URL) MarshalJSON() ([]byte, error) { return json.Marshal(u.String()) }

// UnmarshalJSON accepts a plain JSON string, the URL as written. JSON null
// leaves the value unchanged.
func (u *URL) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New("secret: expected a JSON string")
	}
	*u = URL(v)
	return nil
}

// LogValue implements slog.LogValuer so structured logs show the masked URL.
func (u URL) LogValue() slog.Value { return slog.StringValue(u.String()) }
