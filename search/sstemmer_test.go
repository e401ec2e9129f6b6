package search

import "testing"

func TestSStem(t *testing.T) {
	for in, want := range map[string]string{
		"repositories": "repository", "queries": "query", "issues": "issue", "files": "file",
		"pulls": "pull", "status": "status", "address": "address", "shoes": "shoes", "does": "does", "boxes": "boxe",
		"trees": "trees", "aliases": "aliase", "organization": "organization", "gas": "ga", "bus": "bus",
		"s3": "s3", "eies": "eies", "series": "sery",
	} {
		if got, _ := sStem(in); got != want {
			t.Errorf("sStem(%q) = %q, want %q", in, got, want)
		}
	}
}
