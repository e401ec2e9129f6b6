package httppolicy

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewClientValidation(t *testing.T) {
	const secret = "s3cret-token"
	cases := []struct {
		name    string
		url     string
		headers map[string]string
		want    *ConfigError // nil = valid
	}{
		{name: "https ok", url: "https://example.com/mcp", headers: map[string]string{"Authorization": "Bearer " + secret}},
		{name: "http ok", url: "http://127.0.0.1:3001/sse"},
		{name: "user info ok", url: "https://u:" + secret + "@example.com/mcp"},
		{name: "empty", url: "", want: &ConfigError{Field: "url", Reason: "is required for sse and http servers"}},
		{name: "relative", url: "/mcp", want: &ConfigError{Field: "url", Reason: "must be absolute, starting with http:// or https://"}},
		{name: "ws scheme", url: "ws://example.com/mcp", want: &ConfigError{Field: "url", Reason: `must start with http:// or https:// (got scheme "ws")`}},
		{name: "no host", url: "https:///mcp", want: &ConfigError{Field: "url", Reason: "has no host"}},
		{name: "unparsable, secret not echoed", url: "https://u:" + secret + "@exa mple.com/", want: &ConfigError{Field: "url",
			Reason: `is not a valid URL: invalid character " " in host name`}},
		{name: "bad header name", url: "https://example.com", headers: map[string]string{"X Api": "v"},
			want: &ConfigError{Field: "headers", Reason: `"X Api" is not a valid header name (letters, digits and !#$%&'*+-.^_` + "`" + `|~ only)`}},
		{name: "empty header name", url: "https://example.com", headers: map[string]string{"": "v"},
			want: &ConfigError{Field: "headers", Reason: "has an empty header name"}},
		{name: "newline in value, value not echoed", url: "https://example.com", headers: map[string]string{"X-Api-Key": secret + "\r\nX-Evil: 1"},
			want: &ConfigError{Field: "headers.X-Api-Key", Reason: "value contains a control character such as a newline"}},
		{name: "Host is the client's", url: "https://example.com", headers: map[string]string{"host": "evil.example"},
			want: &ConfigError{Field: "headers.host", Reason: "is set by the HTTP client itself and cannot be configured"}},
		{name: "same name twice", url: "https://example.com", headers: map[string]string{"X-Api-Key": secret, "x-api-key": secret},
			want: &ConfigError{Field: "headers", Reason: `"X-Api-Key" and "x-api-key" name the same header (header names are case-insensitive)`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(Policy{ServerURL: tc.url, Headers: tc.headers})
			var got *ConfigError
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("error %v is not a *ConfigError", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NewClient error (-want +got):\n%s", diff)
			}
			if err == nil && (c == nil || c.Transport == nil || c.CheckRedirect == nil) {
				t.Errorf("NewClient returned an incomplete client %+v", c)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("error %q leaks a secret", err)
			}
		})
	}
}
