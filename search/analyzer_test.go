package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExactKeySplitsIdentifiers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"createPullRequest", "create pull request"},
		{"get_file_contents", "get file contents"},
		{"get-file-contents", "get file contents"},
		{"fs.read/file", "fs read file"},
		{"s3Bucket", "s3 bucket"},
		{"listEC2Instances", "list ec2 instances"},
		{"HTTPServer", "http server"},
		{"IPv4", "ipv4"},
		{"listURLs", "list urls"},
		{"base64Encode", "base64 encode"},
		{"mcp_github__create_issue", "mcp github create issue"},
		{"  Get File  Contents ", "get file contents"},
		{"user's repo", "user's repo"},
		{"'quoted'", "quoted"},
		{"Größe_ändern", "größe ändern"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := exactKey(tt.in); got != tt.want {
				t.Errorf("exactKey(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"createPullRequest", []string{"createpullrequest", "create", "pull", "request"}},
		{"get_file_contents", []string{"get", "file", "content"}},
		{"Lists the user's repositories", []string{"list", "user", "repository"}},
		{"s3Bucket", []string{"s3bucket", "s3", "bucket"}},
		{"Search for issues in a GitHub repo", []string{"search", "issue", "github", "git", "hub", "repo"}},
		{"github_repo", []string{"github", "repo"}},
		{"the and of", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Analyze(tt.in)
			if len(got) == 0 {
				got = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Analyze(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
