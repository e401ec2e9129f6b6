package stdiotransport

import (
	"path/filepath"
	"testing"
)

func TestSearchPathExt(t *testing.T) {
	files := map[string]bool{
		filepath.Join("nodejs", "npx.cmd"): true,
		filepath.Join("nodejs", "npx"):     true, // the sh script npm also installs: not runnable on Windows
		filepath.Join("py", "uvx.exe"):     true,
		filepath.Join("tools", "run.ps1"):  true,
	}
	exists := func(p string) bool { return files[p] }
	dirs := []string{"nodejs", "py", "tools"}
	for _, tc := range []struct{ command, pathext, want string }{
		{"npx", "", filepath.Join("nodejs", "npx.cmd")},
		{"uvx", ".EXE;.CMD", filepath.Join("py", "uvx.exe")},
		{"npx.cmd", "", filepath.Join("nodejs", "npx.cmd")},
		{"run", "", ""}, // .ps1 is not in the default PATHEXT
		{"run", ".PS1", filepath.Join("tools", "run.ps1")},
		{"node", "", ""},
	} {
		t.Run(tc.command+tc.pathext, func(t *testing.T) {
			if got := searchPathExt(tc.command, dirs, tc.pathext, exists); got != tc.want {
				t.Errorf("searchPathExt(%q, PATHEXT=%q) = %q; want %q", tc.command, tc.pathext, got, tc.want)
			}
		})
	}
}

func TestEnvValueFold(t *testing.T) {
	env := []string{"Path=C:\\a", "PATHEXT=.EXE"}
	if got := envValueFold(env, "PATH"); got != `C:\a` {
		t.Errorf("PATH = %q; want C:\\a", got)
	}
}
