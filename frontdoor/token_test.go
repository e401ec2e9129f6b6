package frontdoor_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plughost/plughost/frontdoor"
	"github.com/plughost/plughost/internal/ownertest"
	"github.com/plughost/plughost/internal/wine"
	"github.com/plughost/plughost/lib/ownerfile"
)

// TestLoadOrCreateToken checks the token file's life: created private in a
// new directory, read back, refused once other accounts may read it (with
// this system's fix), refused when too short.
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
	ownertest.Private(t, path)
	if runtime.GOOS != "windows" { // a Windows directory keeps the ACL it inherits
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v), want %v", dir, fi.Mode().Perm(), err, os.FileMode(0o700))
		}
	}
	again, created, err := frontdoor.LoadOrCreateToken(path)
	if !wineRefuses(t, "the second use", err) && (err != nil || created || again != tok) {
		t.Errorf("second use: created=%v err=%v same=%v", created, err, again == tok)
	}
	other, _, _ := frontdoor.LoadOrCreateToken(filepath.Join(dir, "other.token"))
	if other == tok {
		t.Error("two token files got the same token")
	}

	ownertest.Expose(t, path)
	if _, _, err := frontdoor.LoadOrCreateToken(path); err == nil || !strings.Contains(err.Error(), ownertest.Fix(path)) {
		t.Errorf("world-readable token file: %v, want an error saying %s", err, ownertest.Fix(path))
	}
	short := filepath.Join(dir, "short.token")
	// Kept to its owner (on Windows by its ACL), so that only its length
	// is wrong.
	f, err := os.OpenFile(short, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	err = errors.Join(ownerfile.Restrict(f), func() error { _, err := f.WriteString("abc\n"); return err }(), f.Close())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := frontdoor.LoadOrCreateToken(short); !wineRefuses(t, "the short token's check", err) &&
		(err == nil || !strings.Contains(err.Error(), "delete the file")) {
		t.Errorf("short token: %v, want an error saying how to fix it", err)
	}
	if _, _, err := frontdoor.LoadOrCreateToken(""); err == nil || !strings.Contains(err.Error(), "token_file") {
		t.Errorf("no path: %v", err)
	}
}

// wineRefuses reports, logging a SKIP of what, whether err is the refusal
// of a token file that grants \Everyone access under wine: wine derives
// every file's ACL from its Unix mode bits and keeps none set on it, so it
// refuses every token file there.
func wineRefuses(t *testing.T, what string, err error) bool {
	t.Helper()
	if !wine.Running() || err == nil || !strings.Contains(err.Error(), `grants access to \Everyone`) {
		return false
	}
	t.Logf("SKIP %s: under wine every file grants \\Everyone access (wine derives a file's ACL from its Unix mode bits and keeps none set on it), so the file is refused: %v", what, err)
	return true
}
