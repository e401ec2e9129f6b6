package release

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// snapshot is the dist directory of one snapshot release, built once.
type snapshot struct {
	dist     string
	version  string
	commit   string // as goreleaser saw it: "none" where git has no remote
	archives int    // how many archives SHA256SUMS must list
	full     bool   // made by goreleaser: SBOMs, cask and Scoop manifest too
	sbom     bool   // the SBOMs were made
}

// buildSnapshot makes the release archives to test. Under make
// test-release (PLUGHOST_GORELEASER and PLUGHOST_CYCLONEDX set) goreleaser
// makes them; otherwise (make test) buildArchive makes this machine's
// archive from the same config.
func buildSnapshot(t *testing.T) snapshot {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIP in -short: a release archive links plughost and its plugins")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gr, cdx := os.Getenv("PLUGHOST_GORELEASER"), os.Getenv("PLUGHOST_CYCLONEDX")
	if gr == "" || cdx == "" {
		t.Log("goreleaser not given (make test-release builds it): this machine's archive is made from .goreleaser.yaml by the test; SBOMs, cask and Scoop manifest are left to make test-release")
		return buildArchive(t, root, runtime.GOOS, runtime.GOARCH)
	}
	return goreleaserSnapshot(t, root, gr, cdx)
}

// goreleaserSnapshot runs goreleaser check on the real config, then a
// snapshot release of it with the targets narrowed to this machine's
// architecture (linux, darwin and windows: the cask and the Scoop manifest
// need the latter two), into a temporary dist.
func goreleaserSnapshot(t *testing.T, root, gr, cdx string) snapshot {
	t.Helper()
	run(t, root, nil, gr, "check")

	cfg, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const goarch = "goarch: [amd64, arm64]"
	if !bytes.Contains(cfg, []byte(goarch)) {
		t.Fatalf(".goreleaser.yaml has no %q line to narrow", goarch)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	sbom := true
	if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && !fi.IsDir() {
		// cyclonedx-gomod reads the main module's version with go-git,
		// which cannot open a git worktree (.git is a file there).
		i, j := bytes.Index(cfg, []byte("\nsboms:")), bytes.Index(cfg, []byte("\nsnapshot:"))
		if i < 0 || j < i {
			t.Fatal(".goreleaser.yaml: no sboms section before snapshot")
		}
		cfg = append(cfg[:i:i], cfg[j:]...)
		sbom = false
		t.Log("WARNING: SBOMs NOT exercised: this checkout is a git worktree, which cyclonedx-gomod cannot read; a clone (CI) runs them")
	}
	cfg = bytes.Replace(cfg, []byte(goarch), []byte("goarch: ["+runtime.GOARCH+"]"), 1)
	cfg = append(cfg, []byte("\ndist: "+dist+"\n")...)
	narrowed := filepath.Join(t.TempDir(), "goreleaser.yaml")
	if err := os.WriteFile(narrowed, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Dir(cdx) + string(os.PathListSeparator) + os.Getenv("PATH"), "PLUGHOST_SRC=" + root}
	start := time.Now()
	run(t, root, env, gr, "release", "--snapshot", "--clean", "--skip=publish", "--config", narrowed)
	t.Logf("snapshot release of linux, darwin and windows/%s took %s", runtime.GOARCH, time.Since(start).Round(time.Second))

	meta, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"version":\s*"([^"]+)"`).FindSubmatch(meta)
	if m == nil {
		t.Fatalf("no version in dist/metadata.json: %s", meta)
	}
	c := regexp.MustCompile(`"commit":\s*"([^"]*)"`).FindSubmatch(meta)
	if c == nil {
		t.Fatalf("no commit in dist/metadata.json: %s", meta)
	}
	return snapshot{dist: dist, version: string(m[1]), commit: string(c[1]), archives: 3, full: true, sbom: sbom}
}

func TestSnapshotRelease(t *testing.T) {
	s := buildSnapshot(t)
	goos, goarch := runtime.GOOS, runtime.GOARCH
	if goos != "linux" {
		t.Skipf("SKIP: the archive is run on Linux only (this is %s)", goos)
	}
	t.Run("checksums", func(t *testing.T) { checkSums(t, s) })
	t.Run("sboms", func(t *testing.T) {
		if !s.full {
			t.Skip("SKIP: no SBOMs without goreleaser: make test-release makes and checks them")
		}
		if !s.sbom {
			t.Skip("SKIP: SBOMs not made in a git worktree (see above)")
		}
		for _, o := range []string{"linux", "darwin", "windows"} {
			ext := ".tar.gz"
			if o == "windows" {
				ext = ".zip"
			}
			b, err := os.ReadFile(filepath.Join(s.dist, "plughost_"+s.version+"_"+o+"_"+goarch+ext+".cdx.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"bomFormat": "CycloneDX"`, `github.com/hashicorp/go-plugin`} {
				if !bytes.Contains(b, []byte(want)) {
					t.Errorf("%s SBOM lacks %s", o, want)
				}
			}
		}
	})
	t.Run("cask and scoop", func(t *testing.T) {
		if !s.full {
			t.Skip("SKIP: no cask or Scoop manifest without goreleaser: make test-release makes and checks them")
		}
		cask, err := os.ReadFile(filepath.Join(s.dist, "homebrew", "Casks", "plughost.rb"))
		if err != nil {
			t.Fatal(err)
		}
		scoop, err := os.ReadFile(filepath.Join(s.dist, "scoop", "plughost.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`version "` + s.version + `"`, "_darwin_" + goarch + ".tar.gz", `binary "plughost"`, `"plugins/mcp-transport-stdio"`} {
			if !strings.Contains(string(cask), want) {
				t.Errorf("cask lacks %q:\n%s", want, cask)
			}
		}
		for _, want := range []string{`"version": "` + s.version + `"`, "plughost_" + s.version + "_windows_" + goarch + ".zip", `plughost.exe`} {
			if !strings.Contains(string(scoop), want) {
				t.Errorf("scoop manifest lacks %q:\n%s", want, scoop)
			}
		}
	})
	dir := unpack(t, filepath.Join(s.dist, "plughost_"+s.version+"_linux_"+goarch+".tar.gz"))
	t.Run("layout", func(t *testing.T) { checkLayout(t, dir, "") })
	t.Run("clean machine", func(t *testing.T) { runFromArchive(t, dir, s) })
	t.Run("install.sh", func(t *testing.T) { runInstallScript(t, s) })
}

// checkSums checks that SHA256SUMS lists every archive with its real digest.
func checkSums(t *testing.T, s snapshot) {
	sums, err := os.ReadFile(filepath.Join(s.dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q: want '<sha256>  <file>'", line)
		}
		b, err := os.ReadFile(filepath.Join(s.dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
		if strings.HasPrefix(name, "plughost_") && (strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".zip")) {
			listed++
		}
	}
	if listed != s.archives {
		t.Errorf("SHA256SUMS lists %d archives; want %d:\n%s", listed, s.archives, sums)
	}
}

// unpack extracts a .tar.gz with tar into a temporary dir and returns the
// archive's top directory.
func unpack(t *testing.T, archive string) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, nil, "tar", "-xzf", archive)
	top := filepath.Join(dir, strings.TrimSuffix(filepath.Base(archive), ".tar.gz"))
	if _, err := os.Stat(top); err != nil {
		t.Fatalf("archive %s has no top directory %s: %v", archive, filepath.Base(top), err)
	}
	return top
}

// checkLayout checks the files an archive must hold, executables marked so
// (exe is their suffix: ".exe" on Windows, where no mode bit marks them).
func checkLayout(t *testing.T, dir, exe string) {
	for _, f := range []string{"plughost" + exe, "plugins/mcp-transport-stdio" + exe, "plugins/mcp-transport-sse" + exe,
		"plugins/mcp-transport-http" + exe, "README.md", "completions/plughost.bash", "completions/_plughost",
		"completions/plughost.fish", "completions/plughost.ps1", "manpages/plughost.1", "manpages/plughost-serve.1"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("archive lacks %s", f)
			continue
		}
		if isExe := f == "plughost" || strings.HasPrefix(f, "plugins/"); isExe && exe == "" && fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable (mode %v)", f, fi.Mode())
		}
	}
	// The terms the archive is under, and those of what it links.
	for f, want := range map[string][]string{
		"LICENSE":             {"Apache License", "Version 2.0, January 2004"},
		"THIRD_PARTY_NOTICES": {"The Go standard library and runtime", "github.com/hashicorp/go-plugin", "Mozilla Public License", "github.com/mark3labs/mcp-go"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("archive lacks %s", f)
			continue
		}
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				t.Errorf("archive's %s lacks %q", f, w)
			}
		}
	}
}

// cleanEnv is a fresh HOME and a PATH without Go on it.
func cleanEnv(t *testing.T) (home string, env []string) {
	home = t.TempDir()
	path := "/usr/bin:/bin"
	for _, d := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			t.Fatalf("%s/go exists: the clean PATH would have Go on it", d)
		}
	}
	return home, []string{"HOME=" + home, "PATH=" + path, "LANG=C.UTF-8"}
}

// runFromArchive runs the unpacked plughost as a user without Go would:
// version, serve (the demo), mcp add and tools.
func runFromArchive(t *testing.T, dir string, s snapshot) {
	home, env := cleanEnv(t)
	ph := filepath.Join(dir, "plughost")
	out := runClean(t, home, env, ph, "version")
	for _, want := range []string{"plughost " + s.version, "commit:   " + s.commit, "go:       " + runtime.Version()} {
		if !strings.Contains(out, want) {
			t.Errorf("plughost version lacks %q:\n%s", want, out)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, url := startServe(ctx, t, home, env, ph)
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %s", resp.Status)
	}
	// The demo server connects a moment after serve says where it serves.
	tools := func() string { return runClean(t, home, env, ph, "tools") }
	waitTools(t, "plughost tools with the demo config lists mcp_demo_calculate", tools, func(out string) bool {
		return strings.Contains(out, "mcp_demo_calculate")
	})

	runClean(t, home, env, ph, "mcp", "add", "archived", "--", ph, "demo-server")
	// serve reloads the changed config and starts the new server.
	waitTools(t, "plughost tools after mcp add lists mcp_archived_echo", tools, func(out string) bool {
		return strings.Contains(out, "mcp_archived_echo")
	})
}

// waitTools runs tools (plughost tools) every second until ready accepts
// its output, and fails the test saying what it awaited when a minute
// passes first: a server connects a moment after serve starts, or
// reloads the config that added it.
func waitTools(t *testing.T, awaited string, tools func() string, ready func(out string) bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		out := tools()
		if ready(out) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for: %s; the last output:\n%s", awaited, out)
		}
	}
}

// startServe starts `serve --listen 127.0.0.1:0` with the command line
// argv (plughost, or wine and plughost.exe) in dir with env, stopped when
// the test ends, and returns it once it says where it serves.
func startServe(ctx context.Context, t *testing.T, dir string, env []string, argv ...string) (serve *exec.Cmd, url string) {
	t.Helper()
	serve = exec.CommandContext(ctx, argv[0], append(argv[1:], "serve", "--listen", "127.0.0.1:0")...)
	serve.Dir, serve.Env = dir, env
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	return serve, waitServing(t, stderr)
}

// waitServing reads serve's stderr until it says where it serves.
func waitServing(t *testing.T, stderr interface{ Read([]byte) (int, error) }) string {
	t.Helper()
	re := regexp.MustCompile(`serving \d+ configured server\(s\) at (\S+);`)
	found := make(chan string, 1)
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case url, ok := <-found:
		if !ok {
			t.Fatalf("serve exited before serving:\n%s", log.String())
		}
		return url
	case <-time.After(time.Minute):
		t.Fatal("serve did not say where it serves within a minute")
	}
	return ""
}

// runInstallScript installs from the dist dir over HTTP with install.sh,
// then checks a tampered SHA256SUMS stops it.
func runInstallScript(t *testing.T, s snapshot) {
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("SKIP: neither curl nor wget: install.sh cannot download")
		}
	}
	script, err := filepath.Abs("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(s.dist)))
	defer srv.Close()
	home, env := cleanEnv(t)
	prefix := filepath.Join(home, ".local")
	out := runClean(t, home, env, "sh", script, "--base-url", srv.URL, "--prefix", prefix)
	if !strings.Contains(out, "installed plughost "+s.version) || !strings.Contains(out, "plughost "+s.version) {
		t.Errorf("install.sh output:\n%s", out)
	}
	out = runClean(t, home, env, filepath.Join(prefix, "bin", "plughost"), "tools")
	if !strings.Contains(out, "mcp_demo_echo") {
		t.Errorf("installed plughost tools lacks mcp_demo_echo (plugins not found?):\n%s", out)
	}

	// The same archive with a checksum list that disagrees must be refused.
	bad := t.TempDir()
	sums, err := os.ReadFile(filepath.Join(s.dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	sums = regexp.MustCompile(`(?m)^[0-9a-f]{64}`).ReplaceAll(sums, bytes.Repeat([]byte("0"), 64))
	name := "plughost_" + s.version + "_linux_" + runtime.GOARCH + ".tar.gz"
	archive, err := os.ReadFile(filepath.Join(s.dist, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "SHA256SUMS"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, name), archive, 0o644); err != nil {
		t.Fatal(err)
	}
	badSrv := httptest.NewServer(http.FileServer(http.Dir(bad)))
	defer badSrv.Close()
	cmd := exec.Command("sh", script, "--base-url", badSrv.URL, "--prefix", filepath.Join(home, "bad"))
	cmd.Dir, cmd.Env = home, env
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "checksum mismatch") {
		t.Errorf("install.sh with a wrong SHA256SUMS: err %v, output:\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(home, "bad", "bin", "plughost")); err == nil {
		t.Error("install.sh installed despite the checksum mismatch")
	}
}

// run runs a command in dir with this process's environment plus env and
// returns its stdout; a failure ends the test with its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	return runEnv(t, dir, append(os.Environ(), env...), name, args...)
}

// runClean is run with exactly env (a clean machine's).
func runClean(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	return runEnv(t, dir, env, name, args...)
}

func runEnv(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A process the command started that outlives it keeps its output
	// open; after this long, Run gives up on it with exec.ErrWaitDelay.
	cmd.WaitDelay = 15 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
