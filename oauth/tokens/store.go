package tokens

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/lib/atomicfile"
	"github.com/plughost/plughost/lib/secret"
)

// Store keeps each server's Grant. Implementations are safe for concurrent
// use; the default is FileStore.
type Store interface {
	// Load returns the server's grant, or nil when there is none.
	Load(ctx context.Context, server string) (*Grant, error)
	// Save replaces the server's grant, atomically: a reader sees the old
	// grant or the new one, never a mix.
	Save(ctx context.Context, server string, g *Grant) error
	// Delete forgets the server's grant; deleting none is not an error.
	Delete(ctx context.Context, server string) error
}

// FileStore keeps one JSON file per server in Dir (mode 0700), each written
// with mode 0600 (on Windows an owner-only ACL) through a temporary file,
// fsync and rename (atomicfile.Write).
type FileStore struct {
	// Dir holds the files, e.g. ~/.plughost/oauth.
	Dir string
}

var _ Store = FileStore{}

// maxGrantFile bounds a grant file read.
const maxGrantFile = 1 << 20

// fileVersion is the format of the grant files.
const fileVersion = 1

// Path returns the file of a server's grant: the name with every byte but
// letters, digits, '-' and '_' written as %XX, so any server name is a safe
// file name and no two names share a file.
func (f FileStore) Path(server string) string {
	var b strings.Builder
	for i := 0; i < len(server); i++ {
		c := server[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return filepath.Join(f.Dir, b.String()+".json")
}

// errNoDir is the error of a FileStore without a directory.
var errNoDir = errors.New("no directory for OAuth tokens (the home directory is unknown: set HOME)")

// Load reads the server's grant file.
func (f FileStore) Load(_ context.Context, server string) (*Grant, error) {
	if f.Dir == "" {
		return nil, errNoDir
	}
	path := f.Path(server)
	file, err := atomicfile.Open(path) // a refresh elsewhere may be replacing it
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the token file %s: %w", path, err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxGrantFile+1))
	if err != nil {
		return nil, fmt.Errorf("read the token file %s: %w", path, err)
	}
	var gf grantFile
	if len(data) > maxGrantFile || json.Unmarshal(data, &gf) != nil || gf.Version != fileVersion {
		return nil, fmt.Errorf("the token file %s is damaged or from another version; log in again (plughost mcp login %s)", path, server)
	}
	return gf.grant(), nil
}

// Save writes the server's grant file atomically with mode 0600 (on
// Windows an owner-only ACL), waiting up to 2s there for a reader that has
// the old file open.
func (f FileStore) Save(_ context.Context, server string, g *Grant) error {
	if f.Dir == "" {
		return errNoDir
	}
	data, err := json.MarshalIndent(fileOf(g), "", "  ")
	if err != nil {
		return fmt.Errorf("encode the login of %q: %w", server, err)
	}
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return fmt.Errorf("create the token directory: %w", err)
	}
	if err := atomicfile.Write(f.Path(server), data); err != nil {
		return fmt.Errorf("save the login of %q: %w", server, err)
	}
	return nil
}

// Delete removes the server's grant file.
func (f FileStore) Delete(_ context.Context, server string) error {
	err := os.Remove(f.Path(server))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the token file: %w", err)
	}
	syncDir(f.Dir)
	return nil
}

// syncDir makes a rename or removal in dir durable (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// grantFile is the on-disk form of a Grant: secrets in the clear (the file
// is 0600), which secret.String would mask.
type grantFile struct {
	Version       int        `json:"version"`
	ServerURL     string     `json:"server_url"`
	Issuer        string     `json:"issuer,omitempty"`
	TokenEndpoint string     `json:"token_endpoint,omitempty"`
	Resource      string     `json:"resource,omitempty"`
	Client        clientFile `json:"client,omitzero"`
	AccessToken   string     `json:"access_token,omitempty"`
	RefreshToken  string     `json:"refresh_token,omitempty"`
	TokenType     string     `json:"token_type,omitempty"`
	Expiry        time.Time  `json:"expiry,omitzero"`
	ObtainedAt    time.Time  `json:"obtained_at,omitzero"`
	Scopes        []string   `json:"scopes,omitempty"`
	NeedsLogin    *Need      `json:"needs_login,omitempty"`
}

type clientFile struct {
	ID          string `json:"id,omitempty"`
	Secret      string `json:"secret,omitempty"`
	AuthMethod  string `json:"auth_method,omitempty"`
	RedirectURI string `json:"redirect_uri,omitempty"`
	Registered  bool   `json:"registered,omitempty"`
}

func fileOf(g *Grant) grantFile {
	return grantFile{
		Version: fileVersion, ServerURL: g.ServerURL, Issuer: g.Issuer, TokenEndpoint: g.TokenEndpoint, Resource: g.Resource,
		Client: clientFile{ID: g.Client.ID, Secret: g.Client.Secret.Reveal(), AuthMethod: g.Client.AuthMethod,
			RedirectURI: g.Client.RedirectURI, Registered: g.Client.Registered},
		AccessToken: g.AccessToken.Reveal(), RefreshToken: g.RefreshToken.Reveal(), TokenType: g.TokenType,
		Expiry: g.Expiry, ObtainedAt: g.ObtainedAt, Scopes: g.Scopes, NeedsLogin: g.NeedsLogin,
	}
}

func (gf grantFile) grant() *Grant {
	return &Grant{
		ServerURL: gf.ServerURL, Issuer: gf.Issuer, TokenEndpoint: gf.TokenEndpoint, Resource: gf.Resource,
		Client: Client{ID: gf.Client.ID, Secret: secret.String(gf.Client.Secret), AuthMethod: gf.Client.AuthMethod,
			RedirectURI: gf.Client.RedirectURI, Registered: gf.Client.Registered},
		AccessToken: secret.String(gf.AccessToken), RefreshToken: secret.String(gf.RefreshToken), TokenType: gf.TokenType,
		Expiry: gf.Expiry, ObtainedAt: gf.ObtainedAt, Scopes: gf.Scopes, NeedsLogin: gf.NeedsLogin,
	}
}

// MemoryStore keeps grants in memory. The plughost binary does not use it: it
// is API for programs that embed the host package and persist no logins
// (host.Options.TokenStore). The zero value is ready; it is safe for
// concurrent use.
type MemoryStore struct {
	mu     sync.Mutex
	grants map[string]*Grant
}

var _ Store = (*MemoryStore)(nil)

// Load returns a copy of the server's grant.
func (m *MemoryStore) Load(_ context.Context, server string) (*Grant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.grants[server].clone(), nil
}

// Save stores a copy of g.
func (m *MemoryStore) Save(_ context.Context, server string, g *Grant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.grants == nil {
		m.grants = map[string]*Grant{}
	}
	m.grants[server] = g.clone()
	return nil
}

// Delete forgets the server's grant.
func (m *MemoryStore) Delete(_ context.Context, server string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.grants, server)
	return nil
}
