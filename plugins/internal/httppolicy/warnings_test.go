package httppolicy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWarnings(t *testing.T) {
	cases := []struct {
		url  string
		want []string
	}{
		{"http://127.0.0.1:8080/mcp", nil},
		{"http://127.1.2.3/mcp", nil},
		{"http://localhost:3001/sse", nil},
		{"http://LOCALHOST/sse", nil},
		{"http://api.localhost/sse", nil},
		{"http://[::1]:3001/mcp", nil},
		{"https://example.com/mcp", nil},
		{"http://example.com/mcp", []string{"url uses plain http to example.com: traffic (including headers) is not encrypted; use https"}},
		{"http://user:pw@example.com:8080/mcp?key=k", []string{"url uses plain http to example.com: traffic (including headers) is not encrypted; use https"}},
		{"http://10.0.0.5/mcp", []string{"url uses plain http to 10.0.0.5: traffic (including headers) is not encrypted; use https"}},
		{"http://[2001:db8::1]/mcp", []string{"url uses plain http to 2001:db8::1: traffic (including headers) is not encrypted; use https"}},
		{"http://localhost.example.com/mcp", []string{"url uses plain http to localhost.example.com: traffic (including headers) is not encrypted; use https"}},
		{"not a url", nil},
		{"", nil},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Warnings(tc.url)); diff != "" {
				t.Errorf("Warnings(%q) (-want +got):\n%s", tc.url, diff)
			}
		})
	}
}
