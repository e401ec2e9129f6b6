package manage

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/jsonedit"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/secret"
)

// ClientInput is what `plughost mcp client add` sets on a client.
type ClientInput struct {
	// Servers are the servers the client may use; each must be configured.
	Servers []string
	// IncludeTools and ExcludeTools are globs on agent-facing tool names.
	IncludeTools, ExcludeTools []string
}

// ClientResult is what AddClient or RotateClient wrote: the entry and the
// new token, which is stored nowhere (only its digest) and must be shown
// to the user once.
type ClientResult struct {
	WriteResult
	// Name is the client's name.
	Name string `json:"name"`
	// Token is the client's new bearer token, in clear.
	Token secret.String `json:"-"`
}

// ClientListing is one configured client as `mcp client list` shows it:
// never its token or digest.
type ClientListing struct {
	// Name is the client's name.
	Name string `json:"name"`
	// Servers are the servers it may use.
	Servers []string `json:"servers"`
	// IncludeTools and ExcludeTools are its tool globs.
	IncludeTools []string `json:"include_tools,omitempty"`
	ExcludeTools []string `json:"exclude_tools,omitempty"`
}

// UnknownServersError says that a client was given servers that are not
// configured.
type UnknownServersError struct {
	// Client is the client's name.
	Client string
	// Unknown are the names not configured; Known the configured servers.
	Unknown, Known []string
}

// Error implements error.
func (e *UnknownServersError) Error() string {
	known := "none yet (add one with plughost mcp add)"
	if len(e.Known) > 0 {
		known = strings.Join(e.Known, ", ")
	}
	return fmt.Sprintf("client %q: no configured server named %s; configured servers: %s",
		e.Client, quoteAll(e.Unknown), known)
}

// ClientNotFoundError says that the user file has no client of that name.
type ClientNotFoundError struct {
	// Name is the client asked for; Configured the clients the file has.
	Name       string
	Configured []string
	// File is the user file.
	File string
}

// Error implements error.
func (e *ClientNotFoundError) Error() string {
	configured := "none"
	if len(e.Configured) > 0 {
		configured = strings.Join(e.Configured, ", ")
	}
	return fmt.Sprintf("no client named %q in %s (configured: %s); add one with plughost mcp client add NAME --servers ...", e.Name, e.File, configured)
}

// ClientExistsError says that a client of that name exists already.
type ClientExistsError struct {
	// Name is the client's name; File the user file.
	Name, File string
}

// Error implements error.
func (e *ClientExistsError) Error() string {
	return fmt.Sprintf("client %q already exists in %s; run plughost mcp client rotate %s for a new token, or remove it first", e.Name, e.File, e.Name)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// clientKeys is the key list of a client's entry.
func clientKeys(name string) [][]string {
	return [][]string{{"tools", "mcp", "gateway", "clients", name}}
}

// AddClient writes a new client to the user file with a new random token
// (only its sha256 is stored) and returns the token. The name must be new
// and valid, every server configured; the entry is checked with the
// runtime's validator. A running serve picks it up at its next reload.
func (m *Manager) AddClient(name string, in ClientInput, o WriteOptions) (ClientResult, error) {
	if msg := config.CheckClientName(name); msg != "" {
		return ClientResult{}, fmt.Errorf("%s", msg)
	}
	token, digest := host.NewClientToken()
	res := ClientResult{Name: name, Token: secret.String(token)}
	err := m.write(o, clientKeys(name), func(tx *Tx) error {
		l, _, err := config.CheckUserData(tx.opts, tx.data)
		if err != nil {
			return err
		}
		if _, ok := l.Config.MCP.Gateway.Clients[name]; ok {
			return &ClientExistsError{Name: name, File: tx.File()}
		}
		if err := checkServers(name, in.Servers, l.Config); err != nil {
			return err
		}
		c := config.Client{TokenSHA256: secret.String(digest), Servers: in.Servers, IncludeTools: in.IncludeTools, ExcludeTools: in.ExcludeTools}
		if err := tx.setClient(name, c); err != nil {
			return err
		}
		res.WriteResult, err = tx.commitChecked()
		return err
	})
	if err != nil {
		return ClientResult{}, err
	}
	return res, nil
}

// checkServers refuses servers that cfg does not configure.
func checkServers(client string, servers []string, cfg *config.Config) error {
	var unknown []string
	for _, s := range servers {
		if _, ok := cfg.MCP.Servers[s]; !ok {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return &UnknownServersError{Client: client, Unknown: unknown, Known: slices.Sorted(maps.Keys(cfg.MCP.Servers))}
}

// RotateClient gives a client of the user file a new random token and
// returns it; the old token stops working when a running serve reloads.
func (m *Manager) RotateClient(name string, o WriteOptions) (ClientResult, error) {
	token, digest := host.NewClientToken()
	res := ClientResult{Name: name, Token: secret.String(token)}
	err := m.write(o, clientKeys(name), func(tx *Tx) error {
		c, err := tx.storedClient(name)
		if err != nil {
			return err
		}
		c.TokenSHA256 = secret.String(digest)
		if err := tx.setClient(name, c); err != nil {
			return err
		}
		res.WriteResult, err = tx.commitChecked()
		return err
	})
	if err != nil {
		return ClientResult{}, err
	}
	return res, nil
}

// RemoveClient deletes a client from the user file; its token and open
// sessions stop working when a running serve reloads.
func (m *Manager) RemoveClient(name string, o WriteOptions) (WriteResult, error) {
	var res WriteResult
	err := m.write(o, clientKeys(name), func(tx *Tx) error {
		if _, err := tx.storedClient(name); err != nil {
			return err
		}
		out, _, err := jsonedit.Delete(tx.data, clientKeys(name)[0]...)
		if err != nil {
			return tx.notEditable(err)
		}
		tx.data = out
		res, err = tx.commitChecked()
		return err
	})
	if err != nil {
		return WriteResult{}, err
	}
	return res, nil
}

// Clients lists the clients of the merged config, by name, without their
// tokens or digests.
func (m *Manager) Clients() ([]ClientListing, error) {
	l, err := m.Load()
	if err != nil {
		return nil, err
	}
	clients := l.Config.MCP.Gateway.Clients
	out := make([]ClientListing, 0, len(clients))
	for _, name := range slices.Sorted(maps.Keys(clients)) {
		c := clients[name]
		out = append(out, ClientListing{Name: name, Servers: c.Servers, IncludeTools: c.IncludeTools, ExcludeTools: c.ExcludeTools})
	}
	return out, nil
}

// storedClient returns the user file's entry of client name, or a
// *ClientNotFoundError.
func (tx *Tx) storedClient(name string) (config.Client, error) {
	raw, ok, err := jsonedit.Get(tx.data, clientKeys(name)[0]...)
	if err != nil {
		return config.Client{}, tx.notEditable(err)
	}
	var c config.Client
	if !ok || json.Unmarshal(raw, &c) != nil {
		configured, _ := jsonedit.Keys(tx.data, "tools", "mcp", "gateway", "clients")
		return config.Client{}, &ClientNotFoundError{Name: name, File: tx.File(), Configured: configured}
	}
	return c, nil
}

// setClient writes c as tools.mcp.gateway.clients[name] of the candidate.
func (tx *Tx) setClient(name string, c config.Client) error {
	entry, err := c.FileJSON()
	if err != nil {
		return fmt.Errorf("client %q: %w", name, err)
	}
	return tx.set(entry, clientKeys(name)[0]...)
}
