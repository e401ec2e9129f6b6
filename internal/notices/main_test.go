package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoticesOfPlughost writes the notices of plughost's real module graph
// and checks that they hold the terms of modules under each kind of licence
// it links, the standard library's first.
func TestNoticesOfPlughost(t *testing.T) {
	mods, err := linkedModules([]string{"../../cmd/host", "../../plugins/stdio"}, []string{"linux", "windows"})
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 10 || mods[0].Path != "std" {
		t.Fatalf("modules = %v; want the standard library first and many more", mods)
	}
	for _, m := range mods {
		if strings.HasPrefix(m.Path, "github.com/plughost/plughost") {
			t.Errorf("the main module %s is listed", m.Path)
		}
	}
	out := filepath.Join(t.TempDir(), "THIRD_PARTY_NOTICES")
	if err := write(out, mods); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"The Go standard library and runtime, go1",     // BSD, first
		"github.com/hashicorp/go-plugin v",             // MPL-2.0
		"Mozilla Public License",                       //
		"github.com/spf13/cobra v",                     // Apache-2.0
		"github.com/mark3labs/mcp-go v",                // MIT
		"github.com/prometheus/client_golang v",        // Apache-2.0 with a NOTICE file
		"(NOTICE)",                                     //
		"golang.org/x/sys v",                           // BSD
		"Permission is hereby granted, free of charge", // MIT's text
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the notices lack %q", want)
		}
	}
	if i, j := strings.Index(text, "The Go standard library"), strings.Index(text, "github.com/"); i < 0 || j < i {
		t.Errorf("the standard library is not first")
	}
}

// TestModuleWithoutTerms refuses a module that carries no licence file,
// naming it.
func TestModuleWithoutTerms(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/bare\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := write(filepath.Join(t.TempDir(), "out"), []module{{Path: "example.com/bare", Version: "v1.0.0", Dir: dir}})
	if err == nil || !strings.Contains(err.Error(), "example.com/bare v1.0.0 has no LICENSE") {
		t.Fatalf("err = %v; want one naming example.com/bare v1.0.0 and its missing LICENSE", err)
	}
}
