package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// releaseConfig is the part of .goreleaser.yaml that lays out an archive.
type releaseConfig struct {
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		NameTemplate    string   `yaml:"name_template"`
		WrapInDirectory bool     `yaml:"wrap_in_directory"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		Files []archiveFile `yaml:"files"`
	} `yaml:"archives"`
}

// archiveFile is one entry of an archive's files: a glob, or src/dst.
type archiveFile struct {
	Src         string `yaml:"src"`
	Dst         string `yaml:"dst"`
	StripParent bool   `yaml:"strip_parent"`
}

// UnmarshalYAML takes the short form (a bare glob) too.
func (f *archiveFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		f.Src = n.Value
		return nil
	}
	type plain archiveFile
	return n.Decode((*plain)(f))
}

// tmplData is what the config's templates refer to.
type tmplData struct {
	ProjectName, Version, Commit, CommitDate, Os, Arch string
}

// buildArchive makes the goos/goarch archive of .goreleaser.yaml and its
// SHA256SUMS without goreleaser, whose own build takes ten minutes cold:
// the config's hooks, binaries (its ldflags; for this machine's own target
// its default build settings, so the compiled packages are those make
// build and the tests already compiled) and files, in its name template,
// format and directory layout. make test-release runs goreleaser itself.
// buildEnv is added to the builds' environment.
func buildArchive(t *testing.T, root, goos, goarch string, buildEnv ...string) snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg releaseConfig
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(cfg.Archives) != 1 || len(cfg.Builds) == 0 {
		t.Fatalf(".goreleaser.yaml: want one archive and some builds, have %d and %d", len(cfg.Archives), len(cfg.Builds))
	}
	commit := strings.TrimSpace(run(t, root, nil, "git", "rev-parse", "HEAD"))
	data := tmplData{ProjectName: cfg.ProjectName, Version: "0.0.0-snapshot+" + commit[:7], Commit: commit,
		CommitDate: strings.TrimSpace(run(t, root, nil, "git", "log", "-1", "--format=%cI")),
		Os:         goos, Arch: goarch}
	for _, h := range cfg.Before.Hooks {
		run(t, root, nil, "sh", "-c", h)
	}
	a := cfg.Archives[0]
	name := render(t, a.NameTemplate, data)
	stage := filepath.Join(t.TempDir(), name)
	env := buildEnv
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		env = append(env, "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	}
	exe := ""
	if goos == "windows" {
		exe = ".exe" // as goreleaser names Windows binaries
	}
	for _, bd := range cfg.Builds {
		ld := make([]string, len(bd.Ldflags))
		for i, l := range bd.Ldflags {
			ld[i] = render(t, l, data)
		}
		run(t, root, env, "go", "build", "-ldflags", strings.Join(ld, " "), "-o", filepath.Join(stage, bd.Binary+exe), bd.Main)
	}
	for _, f := range a.Files {
		copyFiles(t, root, stage, f)
	}
	dist := t.TempDir()
	prefix := ""
	if a.WrapInDirectory {
		prefix = name + "/"
	}
	format := a.Formats
	for _, o := range a.FormatOverrides {
		if o.Goos == goos {
			format = o.Formats
		}
	}
	var archive string
	switch strings.Join(format, ",") {
	case "tar.gz":
		archive = name + ".tar.gz"
		writeTarGz(t, filepath.Join(dist, archive), stage, prefix)
	case "zip":
		archive = name + ".zip"
		writeZip(t, filepath.Join(dist, archive), stage, prefix)
	default:
		t.Fatalf(".goreleaser.yaml: archive formats %v for %s; the test makes tar.gz or zip", format, goos)
	}
	sum, err := os.ReadFile(filepath.Join(dist, archive))
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("%x  %s\n", sha256.Sum256(sum), archive)
	if err := os.WriteFile(filepath.Join(dist, "SHA256SUMS"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return snapshot{dist: dist, version: data.Version, commit: commit, archives: 1}
}

func render(t *testing.T, text string, data tmplData) string {
	t.Helper()
	tm, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		t.Fatalf(".goreleaser.yaml template %q: %v", text, err)
	}
	var out bytes.Buffer
	if err := tm.Execute(&out, data); err != nil {
		t.Fatalf(".goreleaser.yaml template %q: %v", text, err)
	}
	return out.String()
}

// copyFiles copies the files an archive entry's glob matches into stage,
// as goreleaser lays them: under dst, flattened by strip_parent.
func copyFiles(t *testing.T, root, stage string, f archiveFile) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root, f.Src))
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) == 0 {
		t.Fatalf("archive file %q of .goreleaser.yaml matches nothing in %s", f.Src, root)
	}
	for _, m := range matches {
		rel, err := filepath.Rel(root, m)
		if err != nil {
			t.Fatal(err)
		}
		if f.StripParent {
			rel = filepath.Base(m)
		}
		dst := filepath.Join(stage, f.Dst, rel)
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeTarGz writes the tree under dir to a .tar.gz, each name under prefix.
func writeTarGz(t *testing.T, path, dir, prefix string) {
	t.Helper()
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a test archive: time over size
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		hdr.Name = prefix + filepath.ToSlash(rel)
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// writeZip writes the tree under dir to a .zip, each name under prefix.
func writeZip(t *testing.T, path, dir, prefix string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		hdr, err := zip.FileInfoHeader(fi)
		if err != nil {
			return err
		}
		hdr.Name, hdr.Method = prefix+filepath.ToSlash(rel), zip.Deflate
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
