package artifacts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/host/naming"
	"github.com/plughost/plughost/lib/ownerfile"
	"github.com/plughost/plughost/pluginapi"
)

// Kinds of artifact, each with its own directory under <workspace>/.artifacts.
const (
	// KindMCP holds the full payloads of oversized MCP tool results.
	KindMCP = "mcp"
	// KindTool is the generic large-result spillover, used when a KindMCP
	// write fails.
	KindTool = "tool"
)

// artifactsDir is the directory under the workspace that holds every kind.
const artifactsDir = ".artifacts"

// tempPrefix starts the name of a file still being written.
const tempPrefix = ".tmp-"

// maxNamePart caps the server and tool parts of a file name, so names stay
// well below file-system limits.
const maxNamePart = 48

// writeChunk is how much Save writes between checks of its context.
const writeChunk = 1 << 20

// Store writes artifacts into a workspace and tracks which files are in use,
// so that retention never removes them. It is safe for concurrent use.
type Store struct {
	workspace string // what the paging tools read: the workspace, or a client's directory
	base      string // the directory holding each kind's directory
	client    string // the named client whose store this is; "" for the workspace's
	spool     string // a client's store: the workspace's directory of MCP results, which Claim moves from
	now       func() time.Time
	search    SearchLimits
	use       *usage // shared by the workspace's store and its clients' stores

	clientsMu sync.Mutex
	clients   map[string]*Store // the clients' stores, by name (the workspace's store only)
}

// usage tracks which files are being written or read.
type usage struct {
	mu    sync.Mutex
	inUse map[string]int // absolute path → number of users
}

// NewStore returns a Store for workspace (an absolute or working-directory
// relative path; it is created on the first write).
func NewStore(workspace string, opts ...Option) (*Store, error) {
	if strings.TrimSpace(workspace) == "" {
		return nil, errors.New("artifacts: empty workspace path; set tools.mcp.workspace")
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("artifacts: workspace %q: %w", workspace, err)
	}
	s := &Store{workspace: abs, base: filepath.Join(abs, artifactsDir), now: time.Now, search: SearchLimits{}.withDefaults(),
		use: &usage{inUse: map[string]int{}}, clients: map[string]*Store{}}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Workspace returns the absolute directory the paging tools read: the
// workspace, or for a client's store (ForClient) the client's directory.
func (s *Store) Workspace() string { return s.workspace }

// Dir returns the directory of one kind of artifact.
func (s *Store) Dir(kind string) string {
	return filepath.Join(s.base, kind)
}

// Save writes payload as a new artifact of kind for server's tool and
// returns its absolute path. The file appears under its final name only
// once it is complete.
func (s *Store) Save(ctx context.Context, kind, server, tool, payload string) (string, error) {
	if kind != KindMCP && kind != KindTool {
		return "", fmt.Errorf("artifacts: unknown kind %q", kind)
	}
	dir := s.Dir(kind)
	if err := ensureDir(dir); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, tempPrefix+"*") // CreateTemp uses mode 0600
	if err != nil {
		return "", fmt.Errorf("create artifact in %s: %w", dir, err)
	}
	release := s.acquire(f.Name())
	defer release()
	// A payload may hold secrets: on Windows, where mode 0600 says nothing
	// of access, the file would take its directory's ACL.
	if err := ownerfile.Restrict(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("create artifact in %s: %w", dir, err)
	}
	if err := writeAll(ctx, f, payload); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("write artifact %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write artifact %s: %w", f.Name(), err)
	}
	final := filepath.Join(dir, s.fileName(server, tool))
	if err := os.Rename(f.Name(), final); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("rename artifact to %s: %w", final, err)
	}
	return final, nil
}

// ensureDir creates dir (0700) and tightens an existing one that grants
// group or other access; it never widens permissions.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create artifact directory %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("artifact directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("artifact directory %s is not a directory", dir)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		if err := os.Chmod(dir, perm&^0o077); err != nil {
			return fmt.Errorf("restrict artifact directory %s to its owner: %w", dir, err)
		}
	}
	return nil
}

// writeAll writes payload in chunks, stopping when ctx ends.
func writeAll(ctx context.Context, w io.Writer, payload string) error {
	for len(payload) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(payload), writeChunk)
		if _, err := io.WriteString(w, payload[:n]); err != nil {
			return err
		}
		payload = payload[n:]
	}
	return nil
}

// fileName builds a unique name: <server>__<tool>-<UTC time>-<random>.txt.
func (s *Store) fileName(server, tool string) string { return fileName(s.now(), server, tool) }

// DirOf returns the directory of one kind of artifact of the workspace, as
// Store.Dir does.
func DirOf(workspace, kind string) string { return filepath.Join(workspace, artifactsDir, kind) }

func fileName(now time.Time, server, tool string) string {
	return pluginapi.StampedName(NamePrefix(server, tool), now)
}

// NamePrefix is what the file names of server's tool's artifacts start
// with (pluginapi.ResultSpool.NamePrefix for spooled results).
func NamePrefix(server, tool string) string { return namePart(server) + "__" + namePart(tool) }

func namePart(s string) string {
	clean, _ := naming.Sanitize(s)
	if len(clean) > maxNamePart {
		clean = clean[:maxNamePart] // Sanitize's output is ASCII
	}
	return clean
}

// acquire marks path as in use until the returned function is called.
func (s *Store) acquire(path string) (release func()) {
	u := s.use
	u.mu.Lock()
	u.inUse[path]++
	u.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			if u.inUse[path]--; u.inUse[path] <= 0 {
				delete(u.inUse, path)
			}
			u.mu.Unlock()
		})
	}
}

// busy reports whether path is being written or read.
func (s *Store) busy(path string) bool {
	s.use.mu.Lock()
	defer s.use.mu.Unlock()
	return s.use.inUse[path] > 0
}
