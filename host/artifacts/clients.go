package artifacts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// clientsDir is the directory under <workspace>/.artifacts that holds one
// directory per named client.
const clientsDir = "clients"

// ForClient returns the store of the named gateway client name: its results
// are saved under <workspace>/.artifacts/clients/<name>/<kind>, and its
// paging tools read only <workspace>/.artifacts/clients/<name>, so a client
// never sees another client's results, the administrator's, or the rest of
// the workspace. A path outside that directory is refused exactly as a
// missing file is. The directory is created (0700) on the first call; the
// store is kept and returned again for the same name. It shares its
// workspace store's search limits and its record of files in use, so the
// workspace store's Sweep, which covers every client's directory, never
// removes a file a client is reading. ForClient of a client's store is an
// error.
func (s *Store) ForClient(name string) (*Store, error) {
	if s.client != "" {
		return nil, fmt.Errorf("artifacts: the store of client %q has no client stores of its own", s.client)
	}
	if err := checkClientName(name); err != nil {
		return nil, err
	}
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	if c, ok := s.clients[name]; ok {
		return c, nil
	}
	dir := filepath.Join(s.base, clientsDir, name)
	if err := ensureDir(dir); err != nil {
		return nil, fmt.Errorf("artifacts of client %q: %w", name, err)
	}
	c := &Store{workspace: dir, base: dir, client: name, spool: s.Dir(KindMCP), now: s.now, search: s.search, use: s.use}
	s.clients[name] = c
	return c, nil
}

// checkClientName refuses a name that could not be one directory of its
// own: config.CheckClientName allows letters, digits, '.', '_' and '-',
// which leaves "." and ".." to refuse here.
func checkClientName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 255 {
		return fmt.Errorf("artifacts: client name %q cannot name a directory of its own", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("artifacts: client name %q has the character %q; only letters, digits, '.', '_' and '-' are allowed", name, r)
		}
	}
	return nil
}

// noFileMsg is what a client's store answers for any path it will not
// read, whether missing or outside the client's directory, so the answer
// tells nothing about other files.
const noFileMsg = "no such file among your saved results; pass the path from a [file:...] reference"

// notFound is the refusal of a client's store for path p.
func notFound(p string) error { return &PathError{Path: p, Msg: noFileMsg} }

// Claim moves a result spooled to the workspace's directory of MCP results
// (pluginapi.ResultSpool writes there, whoever the call was for) into this
// client's own directory, keeping its name, and returns its new path, so
// the client that made the call can page it and no other client can. Only
// a finished regular file directly in that directory is moved; Claim on
// the workspace's store is an error.
func (s *Store) Claim(path string) (string, error) {
	if s.client == "" {
		return "", errors.New("artifacts: only a client's store claims spooled results")
	}
	clean := filepath.Clean(path)
	name := filepath.Base(clean)
	if filepath.Dir(clean) != s.spool || strings.HasPrefix(name, tempPrefix) || name == "." || name == string(filepath.Separator) {
		return "", fmt.Errorf("artifacts: %s is not a spooled result in %s", path, s.spool)
	}
	fi, err := os.Lstat(clean)
	if err != nil {
		return "", fmt.Errorf("claim spooled result: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("claim spooled result: %s is not a regular file", path)
	}
	dir := s.Dir(KindMCP)
	if err := ensureDir(dir); err != nil {
		return "", err
	}
	final := filepath.Join(dir, name)
	if err := os.Rename(clean, final); err != nil {
		return "", fmt.Errorf("claim spooled result: %w", err)
	}
	return final, nil
}
