package config

import (
	"path/filepath"
	"runtime"
	"testing"
)

// The system layers are in /etc/plughost/koanf.d on Unix and under
// %ProgramData% on Windows, named in any case there; a ProgramData that is
// unset or not absolute falls back to C:\ProgramData.
func TestDefaultSystemDir(t *testing.T) {
	for _, tc := range []struct {
		environ     []string
		wantWindows string
	}{
		{nil, `C:\ProgramData\plughost\koanf.d`},
		{[]string{`ProgramData=D:\PD`}, `D:\PD\plughost\koanf.d`},
		{[]string{`PROGRAMDATA=D:\PD`, `programdata=E:\Data`}, `E:\Data\plughost\koanf.d`},
		{[]string{`ProgramData=relative`}, `C:\ProgramData\plughost\koanf.d`},
		{[]string{`ProgramData=`}, `C:\ProgramData\plughost\koanf.d`},
	} {
		want := "/etc/plughost/koanf.d"
		if runtime.GOOS == "windows" {
			want = tc.wantWindows
		}
		if got := DefaultSystemDir(tc.environ); got != want {
			t.Errorf("DefaultSystemDir(%q) = %q, want %q", tc.environ, got, want)
		}
	}
}

// Load without a SystemDir reads the default one: on Windows the layers
// under the ProgramData of its Environ; elsewhere that variable means
// nothing and its layers stay unread.
func TestLoadDefaultSystemDir(t *testing.T) {
	pd := t.TempDir()
	writeFile(t, filepath.Join(pd, "plughost", "koanf.d", "50-site.json"), `{"tools":{"mcp":{"discovery":{"ttl":4242}}}}`)
	ld := mustLoad(t, LoadOptions{Home: t.TempDir(), UserData: []byte(`{}`), Environ: []string{"ProgramData=" + pd}})
	got := ld.Config.MCP.Discovery.TTL
	if applied := got == 4242; applied != (runtime.GOOS == "windows") {
		t.Errorf("discovery.ttl = %d with a layer under ProgramData %s setting 4242 on %s; want it applied on windows alone", got, pd, runtime.GOOS)
	}
}
