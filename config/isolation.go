package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Isolation modes of a server's upstream connection (Server.Isolation).
const (
	// IsolationShared is one connection for every session (the default).
	IsolationShared = "shared"
	// IsolationSession is a connection of its own for each session.
	IsolationSession = "session"
)

// Defaults of the isolation settings.
const (
	// DefaultIsolationIdleSeconds is how long a session connection may
	// stay unused before it is closed.
	DefaultIsolationIdleSeconds = 300
	// DefaultMaxSessions bounds a server's session connections.
	DefaultMaxSessions = 32
)

// IsolationMode returns the effective isolation: IsolationShared unless
// the entry says "session".
func (s Server) IsolationMode() string {
	if s.Isolation == IsolationSession {
		return IsolationSession
	}
	return IsolationShared
}

// IsolationIdle returns how long a session connection may stay unused.
func (s Server) IsolationIdle() time.Duration {
	if s.IsolationIdleSeconds > 0 {
		return time.Duration(s.IsolationIdleSeconds) * time.Second
	}
	return DefaultIsolationIdleSeconds * time.Second
}

// SessionLimit returns how many session connections may be open at once.
func (s Server) SessionLimit() int {
	if s.MaxSessions > 0 {
		return s.MaxSessions
	}
	return DefaultMaxSessions
}

// Root is one root as MCP's roots/list result gives it.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// RootList returns the configured roots as MCP roots: a path becomes a
// file:// URI named after its last element. Entries that are neither an
// absolute path nor a file:// URI of one are left out (Validate reports
// them). On Windows an absolute path has a drive or is a UNC path:
// C:\srv\data becomes file:///C:/srv/data and \\host\share\dir
// file://host/share/dir.
func (s Server) RootList() []Root {
	out := make([]Root, 0, len(s.Roots))
	for _, r := range s.Roots {
		if root, ok := parseRoot(r); ok {
			out = append(out, root)
		}
	}
	return out
}

// parseRoot turns one roots entry into an MCP root.
func parseRoot(entry string) (Root, bool) {
	if strings.HasPrefix(entry, "file://") {
		u, err := url.Parse(entry)
		if err != nil {
			return Root{}, false
		}
		p := uriPath(u)
		if !filepath.IsAbs(p) {
			return Root{}, false
		}
		return Root{URI: entry, Name: filepath.Base(p)}, true
	}
	// A Windows device path (\\?\C:\dir, \\.\pipe\x) has no file:// URI.
	if vol := filepath.VolumeName(entry); !filepath.IsAbs(entry) || strings.HasPrefix(vol, `\\?\`) || strings.HasPrefix(vol, `\\.\`) {
		return Root{}, false
	}
	clean := filepath.Clean(entry)
	return Root{URI: fileURI(clean), Name: filepath.Base(clean)}, true
}

// uriPath returns the local path a file:// URI names: file:///srv/data is
// /srv/data; on Windows file:///C:/srv/data is C:\srv\data and
// file://host/share/dir the UNC path \\host\share\dir. It returns "" for a
// remote host elsewhere.
func uriPath(u *url.URL) string {
	p := u.Path
	if u.Host != "" && u.Host != "localhost" {
		if runtime.GOOS != "windows" {
			return ""
		}
		return `\\` + u.Host + filepath.FromSlash(p)
	}
	if len(p) > 1 && p[0] == '/' && filepath.VolumeName(p[1:]) != "" { // /C:/dir on Windows
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

// fileURI returns the file:// URI of the clean absolute path p:
// file:///srv/data; on Windows file:///C:/srv/data for a drive path and
// file://host/share/dir for the UNC path \\host\share\dir.
func fileURI(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
	switch vol := filepath.VolumeName(p); {
	case strings.HasPrefix(vol, `\\`):
		host, _, _ := strings.Cut(vol[2:], `\`)
		u.Host, u.Path = host, filepath.ToSlash(p[2+len(host):])
	case vol != "":
		u.Path = "/" + u.Path
	}
	return u.String()
}

// rootHint says how to write a roots entry on this system, as the config
// file's JSON spells it.
func rootHint() string {
	if runtime.GOOS == "windows" {
		return `write it as "C:\\abs\\dir" or "file:///C:/abs/dir"`
	}
	return `write it as "/abs/dir" or "file:///abs/dir"`
}

// checkIsolation reports bad isolation settings and roots.
func (v serverValidator) checkIsolation() {
	s := v.s
	if s.Isolation != "" && s.Isolation != IsolationShared && s.Isolation != IsolationSession {
		v.fail("isolation", fmt.Sprintf(`must be "shared" or "session", got %q; remove it for "shared" (one connection for every session)`, trunc(s.Isolation)))
	}
	if s.IsolationIdleSeconds < 0 {
		v.fail("isolation_idle_seconds", fmt.Sprintf("must be a positive number of seconds, got %d; remove it for the default (%d)", s.IsolationIdleSeconds, DefaultIsolationIdleSeconds))
	}
	if s.MaxSessions < 0 {
		v.fail("max_sessions", fmt.Sprintf("must be a positive number of sessions, got %d; remove it for the default (%d)", s.MaxSessions, DefaultMaxSessions))
	}
	for i, r := range s.Roots {
		if _, ok := parseRoot(r); !ok {
			v.p.server(v.name, indexPath(serverPath(v.name, "roots"), i), fmt.Sprintf("%q is neither an absolute path nor a file:// URI; %s", trunc(r), rootHint()))
		}
	}
}
