package trust_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plughost/plughost/host/trust"
	"github.com/plughost/plughost/host/trust/trusttest"
	"github.com/plughost/plughost/internal/ownertest"
)

// pinnerEnv makes the test binary a pinner process (see runPinner).
const pinnerEnv = "PLUGHOST_TRUST_TEST_PINNER"

func TestMain(m *testing.M) {
	if args := os.Getenv(pinnerEnv); args != "" {
		if err := runPinner(strings.Split(args, "|")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runPinner pins n tools named <prefix>_<i> of server "shared" in the file
// at path, one Pin each: args are path, prefix, n.
func runPinner(args []string) error {
	n, _ := strconv.Atoi(args[2])
	s, err := trust.OpenFile(args[0])
	if err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("%s_%d", args[1], i)
		d, _ := trust.Digest(json.RawMessage(fmt.Sprintf(`{"name":%q}`, name)))
		if err := s.Pin(context.Background(), "shared", map[string]trust.Pin{name: {Digest: d, By: "cli"}}); err != nil {
			return err
		}
	}
	return nil
}

func openFile(t *testing.T, path string) *trust.FileStore {
	t.Helper()
	s, err := trust.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Two stores on one file behave as one store: two processes of the user.
func TestFileStore(t *testing.T) {
	trusttest.Run(t, func(t *testing.T) (a, b trust.Store, reopen func() trust.Store) {
		path := filepath.Join(t.TempDir(), "home", ".plughost", "pins.json")
		return openFile(t, path), openFile(t, path), func() trust.Store { return openFile(t, path) }
	})
}

func TestDefaultPath(t *testing.T) {
	if got, want := trust.DefaultPath("/home/u"), filepath.Join("/home/u", ".plughost", "pins.json"); got != want {
		t.Errorf("DefaultPath: %s, want %s", got, want)
	}
}

func TestOpenFileWithoutPath(t *testing.T) {
	if _, err := trust.OpenFile(""); err == nil || !strings.Contains(err.Error(), "no path") {
		t.Errorf("OpenFile(\"\"): %v, want an error saying there is no path", err)
	}
}

// Processes pinning tools of one server at once in one file lose none:
// the lock is taken across processes, around the read and the write.
func TestFilePinsFromManyProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	path := filepath.Join(t.TempDir(), "pins.json")
	const procs, each = 4, 15
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|p%d|%d", pinnerEnv, path, p, each))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("pinner %d: %v\n%s", p, err, out)
			}
		})
	}
	s := openFile(t, path) // and this process at the same time
	for i := range each {
		name := fmt.Sprintf("here_%d", i)
		if err := s.Pin(context.Background(), "shared", map[string]trust.Pin{name: trusttest.MakePin(t, fmt.Sprintf(`{"name":%q}`, name), "api")}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	rec, _, err := s.Load(context.Background(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Tools) != (procs+1)*each {
		t.Errorf("%d processes pinned %d tools, %d are in the file: pins were lost", procs+1, (procs+1)*each, len(rec.Tools))
	}
}

// The file and its directory are private: created 0600 and 0700 (on
// Windows the files with an owner-only ACL, the directory with the one it
// inherits), a file made readable by others is made private again by the
// next write, and the lock file is private too.
func TestFileIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", ".plughost")
	path := filepath.Join(dir, "pins.json")
	s := openFile(t, path)
	ctx := context.Background()
	if err := s.Pin(ctx, "s", nil); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" { // a Windows directory keeps the ACL it inherits
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("directory created with mode %v (%v), want 700", fi.Mode().Perm(), err)
		}
	}
	ownertest.Private(t, path)
	ownertest.Private(t, path+".lock")
	ownertest.Expose(t, path)
	if err := s.Pin(ctx, "t", nil); err != nil {
		t.Fatal(err)
	}
	ownertest.Private(t, path) // after a write, a file others could read is the owner's alone again
	if left, _ := filepath.Glob(filepath.Join(dir, ".pins.json.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// The file is the documented format, indented, with definitions readable.
func TestFileFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	s := openFile(t, path)
	p := trusttest.MakePin(t, `{"name":"x","description":"<IMPORTANT>hi</IMPORTANT>"}`, "first list")
	if err := s.Pin(context.Background(), "srv", map[string]trust.Pin{"x": p}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version int `json:"version"`
		Servers map[string]struct {
			Tools map[string]map[string]any `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	x := f.Servers["srv"].Tools["x"]
	if f.Version != 1 || x["digest"] != p.Digest || x["by"] != "first list" || x["at"] == nil ||
		x["definition"].(map[string]any)["description"] != "<IMPORTANT>hi</IMPORTANT>" {
		t.Errorf("file content:\n%s", data)
	}
	if !strings.Contains(string(data), "\n  \"servers\": {\n") || !strings.Contains(string(data), "<IMPORTANT>") {
		t.Errorf("file not indented or HTML escaped:\n%s", data)
	}
}

// A file that is not valid is reported with its path, the problem and the
// way out, by Load and by Pin, and never overwritten.
func TestMalformedFile(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"syntax", "{\n  \"version\": 1,\n  \"servers\": {,}\n}\n", "invalid JSON at line 3, column 15"},
		{"wrong type", `{"version": 1, "servers": {"s": {"tools": []}}}`, `near line 1, column 44 (servers.tools): a JSON array where an object belongs`},
		{"no version", `{"servers": {}}`, `it has no "version"`},
		{"a number", `42`, "a JSON number"},
		{"bad time", `{"version": 1, "servers": {"s": {"tools": {"x": {"at": "yesterday"}}}}}`, `"yesterday"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pins.json")
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := openFile(t, path)
			_, _, loadErr := s.Load(context.Background(), "s")
			pinErr := s.Pin(context.Background(), "s", nil)
			for op, err := range map[string]error{"load": loadErr, "pin": pinErr} {
				if err == nil {
					t.Fatalf("%s of a malformed file succeeded", op)
				}
				for _, want := range []string{path, c.want, "fix it by hand", "move it aside"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: error %q does not say %q", op, err, want)
					}
				}
			}
			if data, _ := os.ReadFile(path); string(data) != c.content {
				t.Errorf("the malformed file was overwritten:\n%s", data)
			}
		})
	}
}

// A file of a newer format is not read, and not overwritten.
func TestNewerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	content := `{"version": 2, "servers": {}}`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openFile(t, path)
	if err := s.Pin(context.Background(), "s", nil); err == nil || !strings.Contains(err.Error(), "newer plughost") {
		t.Errorf("pin into a version 2 file: %v, want an error naming a newer plughost", err)
	}
	if data, _ := os.ReadFile(path); string(data) != content {
		t.Errorf("a newer file was overwritten:\n%s", data)
	}
}

// An empty file holds no pins, like a missing one.
func TestEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openFile(t, path)
	if _, ok, err := s.Load(context.Background(), "s"); ok || err != nil {
		t.Errorf("load from an empty file: ok=%v %v", ok, err)
	}
	if err := s.Pin(context.Background(), "s", nil); err != nil {
		t.Errorf("pin into an empty file: %v", err)
	}
}

// Once its channel has closed, a watch has let go of the file's directory:
// the directory can be removed (on Windows it cannot while watched), as a
// test's TempDir is after the host that watched it closed.
func TestFileChangesReleaseDirectory(t *testing.T) {
	home := t.TempDir()
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		ch := openFile(t, filepath.Join(home, ".plughost", "pins.json")).Changes(ctx)
		cancel()
		for range ch {
		}
		// Removing the folder above: a directory still open is only
		// marked for deletion, and its parent is then not empty.
		if err := os.RemoveAll(home); err != nil {
			t.Fatalf("remove the folder of the watched directory once Changes closed: %v", err)
		}
	}
}

// A watch delivers exactly the servers whose record changed, whoever
// changed the file — a hand edit too — and waits out a file that is not
// valid: once fixed, it is compared with the last valid version.
func TestFileChangesByServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	other := openFile(t, path)
	if err := other.Pin(ctx, "kept", nil); err != nil {
		t.Fatal(err)
	}
	if err := other.Pin(ctx, "edited", nil); err != nil {
		t.Fatal(err)
	}
	ch := openFile(t, path).Changes(ctx)
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-ch:
			if got != want {
				t.Fatalf("Changes delivered %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q not delivered within 10s", want)
		}
	}
	if err := other.Pin(ctx, "edited", map[string]trust.Pin{"x": trusttest.MakePin(t, `{"name":"x"}`, "api")}); err != nil {
		t.Fatal(err)
	}
	expect("edited")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{oops"), 0o600); err != nil { // an editor saving half-way
		t.Fatal(err)
	}
	handEdited := strings.Replace(string(data), `"by": "api"`, `"by": "me"`, 1)
	if handEdited == string(data) {
		t.Fatalf("no pin by api in:\n%s", data)
	}
	if err := os.WriteFile(path, []byte(handEdited), 0o600); err != nil {
		t.Fatal(err)
	}
	expect("edited")
	select {
	case got := <-ch:
		t.Errorf("Changes delivered %q, which did not change", got)
	case <-time.After(200 * time.Millisecond):
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	gone := map[string]bool{}
	for len(gone) < 2 {
		select {
		case got := <-ch:
			gone[got] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("after the file was removed, only %v delivered", gone)
		}
	}
	if !gone["kept"] || !gone["edited"] {
		t.Errorf("after the file was removed: %v delivered, want kept and edited", gone)
	}
}
