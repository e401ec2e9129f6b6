// Command notices writes the licence texts and notices of everything linked
// into plughost and its plugins, for the release archives:
//
//	notices -o THIRD_PARTY_NOTICES ./cmd/host ./plugins/stdio ./plugins/sse ./plugins/http
//
// Most of what plughost links is under licences (MIT, BSD, Apache-2.0,
// MPL-2.0) whose terms ask a binary's distributor to pass on the copyright
// notice, the licence text and, for Apache-2.0, the NOTICE file. notices
// lists the modules the packages import on every release system (linux,
// darwin, windows: build tags change the set), then writes, module by module
// in path order, each one's LICENSE, COPYING and NOTICE files from the
// module cache, the Go standard library's licence first. A module without
// any such file is an error naming it: someone must find its terms before a
// release ships it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	out := flag.String("o", "", "the file to write (default: standard output)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: notices [-o FILE] main-package...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	mods, err := linkedModules(flag.Args(), []string{"linux", "darwin", "windows"})
	if err == nil {
		err = write(*out, mods)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

// module is one module linked into the binaries.
type module struct {
	Path, Version, Dir string
}

// linkedModules lists the modules other than the main one that mains
// import, on any of the systems, sorted by path, with the Go standard
// library first (Path "std").
func linkedModules(mains, systems []string) ([]module, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	version, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOVERSION: %w", err)
	}
	seen := map[string]module{}
	for _, goos := range systems {
		args := append([]string{"list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}"}, mains...)
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -deps for %s: %w: %s", goos, err, strings.TrimSpace(stderr.String()))
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				continue
			}
			if f[2] == "" {
				return nil, fmt.Errorf("module %s %s is not in the module cache: run go mod download", f[0], f[1])
			}
			seen[f[0]+" "+f[1]] = module{Path: f[0], Version: f[1], Dir: f[2]}
		}
	}
	mods := make([]module, 0, len(seen))
	for _, m := range seen {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool {
		if mods[i].Path != mods[j].Path {
			return mods[i].Path < mods[j].Path
		}
		return mods[i].Version < mods[j].Version
	})
	std := module{Path: "std", Version: strings.TrimSpace(string(version)), Dir: strings.TrimSpace(string(goroot))}
	return append([]module{std}, mods...), nil
}

// noticeFile matches the files at a module's root that carry its terms.
var noticeFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice)([.-].*)?$`)

// write writes every module's notice files to path, or to standard output
// when path is "".
func write(path string, mods []module) error {
	var buf bytes.Buffer
	fmt.Fprintln(&buf, "plughost links the software below into its binaries. Each part is under")
	fmt.Fprintln(&buf, "the licence that follows its name; plughost's own licence is in LICENSE.")
	for _, m := range mods {
		files, err := noticeFiles(m.Dir)
		if err != nil {
			return fmt.Errorf("module %s %s: %w", m.Path, m.Version, err)
		}
		if len(files) == 0 {
			return fmt.Errorf("module %s %s has no LICENSE, COPYING or NOTICE file in %s: find its terms before shipping it", m.Path, m.Version, m.Dir)
		}
		name := m.Path + " " + m.Version
		if m.Path == "std" {
			name = "The Go standard library and runtime, " + m.Version
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(m.Dir, f))
			if err != nil {
				return fmt.Errorf("module %s %s: %w", m.Path, m.Version, err)
			}
			fmt.Fprintf(&buf, "\n%s\n%s (%s)\n\n", strings.Repeat("=", 78), name, f)
			buf.Write(bytes.TrimRight(b, "\n"))
			buf.WriteByte('\n')
		}
	}
	if path == "" {
		_, err := os.Stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the notices: %w", err)
	}
	return nil
}

// noticeFiles names the notice files at the root of dir, sorted.
func noticeFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && noticeFile.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
