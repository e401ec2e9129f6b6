package childenv

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var parentEnv = []string{
	"PATH=/usr/bin:/bin",
	"HOME=/home/u",
	"USER=u",
	"LANG=C.UTF-8",
	"LC_ALL=C",
	"TERM=xterm",
	"SHELL=/bin/sh",
	"TMPDIR=/tmp",
	"XDG_CONFIG_HOME=/home/u/.config",
	"XDG_RUNTIME_DIR=/run/user/1",
	"AWS_SECRET_ACCESS_KEY=s3cr3t-aws",
	"GITHUB_TOKEN=ghp_secret",
	"LC_CTYPE=C",
	"XDGNOT=1",
	"SystemRoot=C:\\Windows",
	"=C:=C:\\dir",
	"malformed",
}

// defaultInherited is what a server inherits of parentEnv by default on
// goos: on Windows SystemRoot too, without which a Windows program cannot
// even load its DLLs.
func defaultInherited(goos string) []string {
	out := []string{
		"HOME=/home/u",
		"LANG=C.UTF-8",
		"LC_ALL=C",
		"PATH=/usr/bin:/bin",
		"SHELL=/bin/sh",
		"TERM=xterm",
		"TMPDIR=/tmp",
		"USER=u",
		"XDG_CONFIG_HOME=/home/u/.config",
		"XDG_RUNTIME_DIR=/run/user/1",
	}
	if goos == "windows" {
		out = slices.Insert(out, slices.Index(out, "TERM=xterm"), `SystemRoot=C:\Windows`)
	}
	return out
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		goos    string
		parent  []string
		file    map[string]string
		env     map[string]string
		inherit bool
		want    []string
	}{
		{
			name:   "default allowlist and XDG_ only",
			goos:   "linux",
			parent: parentEnv,
			want:   defaultInherited("linux"),
		},
		{
			name:   "windows default allowlist adds the process variables",
			goos:   "windows",
			parent: parentEnv,
			want:   defaultInherited("windows"),
		},
		{
			name:    "inherit_env passes everything",
			goos:    "linux",
			parent:  parentEnv,
			inherit: true,
			want: []string{
				"=C:=C:\\dir",
				"AWS_SECRET_ACCESS_KEY=s3cr3t-aws",
				"GITHUB_TOKEN=ghp_secret",
				"HOME=/home/u",
				"LANG=C.UTF-8",
				"LC_ALL=C",
				"LC_CTYPE=C",
				"PATH=/usr/bin:/bin",
				"SHELL=/bin/sh",
				"SystemRoot=C:\\Windows",
				"TERM=xterm",
				"TMPDIR=/tmp",
				"USER=u",
				"XDGNOT=1",
				"XDG_CONFIG_HOME=/home/u/.config",
				"XDG_RUNTIME_DIR=/run/user/1",
			},
		},
		{
			name:   "file adds and overrides inherited",
			goos:   "linux",
			parent: []string{"PATH=/bin", "HOME=/h"},
			file:   map[string]string{"HOME=": "", "HOME": "/from-file", "TOKEN": "f"},
			want:   []string{"HOME=/from-file", "HOME==", "PATH=/bin", "TOKEN=f"},
		},
		{
			name:   "env overrides file and inherited",
			goos:   "linux",
			parent: []string{"PATH=/bin", "HOME=/h"},
			file:   map[string]string{"TOKEN": "from-file", "A": "a"},
			env:    map[string]string{"TOKEN": "from-env", "PATH": "/env/bin"},
			want:   []string{"A=a", "HOME=/h", "PATH=/env/bin", "TOKEN=from-env"},
		},
		{
			name:   "empty value kept",
			goos:   "linux",
			parent: []string{"TERM="},
			env:    map[string]string{"EMPTY": ""},
			want:   []string{"EMPTY=", "TERM="},
		},
		{
			name:   "last duplicate in parent wins",
			goos:   "linux",
			parent: []string{"PATH=/first", "PATH=/second"},
			want:   []string{"PATH=/second"},
		},
		{
			name:   "linux keys are case-sensitive",
			goos:   "linux",
			parent: []string{"Path=/x", "path=/y", "SYSTEMROOT=C:\\W"},
			env:    map[string]string{"path": "/z"},
			want:   []string{"path=/z"},
		},
		{
			name: "windows allowlist is case-insensitive",
			goos: "windows",
			parent: []string{"Path=C:\\bin", "SystemRoot=C:\\Windows", "ComSpec=cmd.exe", "SystemDrive=C:", "APPDATA=a", "AWS_SECRET_ACCESS_KEY=s", "=C:=C:\\dir", "xdg_data_home=d",
				"USERNAME=u", "HOMEPATH=\\Users\\u", "ProgramFiles=C:\\Program Files", "GITHUB_TOKEN=t"},
			want: []string{"APPDATA=a", "ComSpec=cmd.exe", "HOMEPATH=\\Users\\u", "Path=C:\\bin", "ProgramFiles=C:\\Program Files", "SystemDrive=C:", "SystemRoot=C:\\Windows",
				"USERNAME=u", "xdg_data_home=d"},
		},
		{
			name:   "windows env override replaces differently cased key",
			goos:   "windows",
			parent: []string{"Path=C:\\bin"},
			env:    map[string]string{"PATH": "D:\\bin"},
			want:   []string{"PATH=D:\\bin"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := merge(tt.goos, tt.parent, tt.file, tt.env, tt.inherit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("merge() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildDoesNotPassSecretsByDefault(t *testing.T) {
	got, err := Build(parentEnv, "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range got {
		if strings.HasPrefix(kv, "AWS_SECRET_ACCESS_KEY=") || strings.HasPrefix(kv, "GITHUB_TOKEN=") {
			t.Errorf("secret passed by default: %s", keyOf(kv))
		}
	}
	if diff := cmp.Diff(defaultInherited(runtime.GOOS), got); diff != "" {
		t.Errorf("Build() mismatch (-want +got):\n%s", diff)
	}
}

func TestBuildEnvFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.env")
	bad := filepath.Join(dir, "bad.env")
	writeFile(t, good, "# tokens\nexport TOKEN=\"from file\"\nHOME=/file-home\nOVERRIDDEN=file\n")
	writeFile(t, bad, "OK=1\nno equals sign hunter2\n")
	// The system's own words for a missing file differ ("no such file or
	// directory", "The system cannot find the file specified."): take them
	// from os.Open, and check the error is fs.ErrNotExist besides.
	missing := filepath.Join(dir, "missing.env")
	_, openErr := os.Open(missing)
	if !errors.Is(openErr, fs.ErrNotExist) {
		t.Fatalf("open %s: %v, want it not to exist", missing, openErr)
	}

	tests := []struct {
		name    string
		envFile string
		env     map[string]string
		want    []string
		wantErr string
		wantIs  error
	}{
		{
			name:    "file adds, env overrides",
			envFile: good,
			env:     map[string]string{"OVERRIDDEN": "env"},
			want:    []string{"HOME=/file-home", "OVERRIDDEN=env", "PATH=/bin", "TOKEN=from file"},
		},
		{
			name:    "missing file",
			envFile: missing,
			wantErr: "env_file: " + openErr.Error() + " (fix the path or remove env_file)",
			wantIs:  fs.ErrNotExist,
		},
		{
			name:    "bad line",
			envFile: bad,
			wantErr: "env_file " + bad + ` line 2: missing "=": write KEY=value (a comment line starts with #)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Build([]string{"PATH=/bin", "HOME=/h"}, tt.envFile, tt.env, false)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Fatalf("error mismatch (-want +got):\n%s", diff)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Fatalf("error %v is not %v", err, tt.wantIs)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Build() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
