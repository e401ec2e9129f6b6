package frontdoor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plughost/plughost/frontdoor"
)

func TestLoadOrCreateToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new-dir")
	path := filepath.Join(dir, "gateway.token")
	tok, created, err := frontdoor.LoadOrCreateToken(path)
	if err != nil || !created || len(tok.Reveal()) < 40 {
		t.Fatalf("first use: %q created=%v err=%v", tok.Reveal(), created, err)
	}
	if strings.Contains(tok.String(), tok.Reveal()) {
		t.Error("the token prints unmasked")
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	again, created, err := frontdoor.LoadOrCreateToken(path)
	if err != nil || created || again != tok {
		t.Errorf("second use: created=%v err=%v same=%v", created, err, again == tok)
	}
	other, _, _ := frontdoor.LoadOrCreateToken(filepath.Join(dir, "other.token"))
	if other == tok {
		t.Error("two token files got the same token")
	}

	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := frontdoor.LoadOrCreateToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("world-readable token file: %v, want an error saying chmod 600", err)
	}
	short := filepath.Join(dir, "short.token")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := frontdoor.LoadOrCreateToken(short); err == nil || !strings.Contains(err.Error(), "delete the file") {
		t.Errorf("short token: %v, want an error saying how to fix it", err)
	}
	if _, _, err := frontdoor.LoadOrCreateToken(""); err == nil || !strings.Contains(err.Error(), "token_file") {
		t.Errorf("no path: %v", err)
	}
}
