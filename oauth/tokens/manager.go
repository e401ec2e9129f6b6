package tokens

import (
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/oauth"
)

// Settings are one server's OAuth settings (its config's url and oauth block).
type Settings struct {
	// ServerURL is the server's endpoint.
	ServerURL string
	// Transport is "http" or "sse": how to ask the server for its challenge.
	Transport string
	// ClientID is a pre-registered client ("" registers one dynamically).
	ClientID string
	// ClientSecret is the pre-registered client's secret.
	ClientSecret secret.String
	// ClientMetadataURL is the https URL of a client ID metadata document,
	// used as client_id where the authorization server supports it.
	ClientMetadataURL string
	// Issuer overrides the authorization server the server names.
	Issuer string
	// Scopes are asked for at every login.
	Scopes []string
	// CallbackPort fixes the loopback callback's port (0: any free port).
	CallbackPort int
}

// Options configure a Manager.
type Options struct {
	// Store keeps the grants. Required.
	Store Store
	// HTTP sends the OAuth requests (nil: http.DefaultClient).
	HTTP *http.Client
	// Logger receives state changes; never a token.
	Logger hclog.Logger
	// Now is the clock (nil: time.Now); tests move it to expire tokens.
	Now func() time.Time
	// ClientName is the name registered clients show on consent pages
	// (default "plughost").
	ClientName string
	// PollInterval is how often a server waiting for a login in another
	// process re-reads the store (default 2s).
	PollInterval time.Duration
}

// Manager holds the Credentials of every OAuth server of a host. Safe for
// concurrent use.
type Manager struct {
	opts   Options
	client *oauth.Client

	mu    sync.Mutex
	creds map[string]*Credentials
}

// NewManager returns a Manager over opts.Store.
func NewManager(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ClientName == "" {
		opts.ClientName = "plughost"
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	return &Manager{opts: opts, client: &oauth.Client{HTTP: opts.HTTP}, creds: map[string]*Credentials{}}
}

// For returns the credentials of a server, made on first use with settings
// and made again when the settings changed (a config reload).
func (m *Manager) For(server string, settings Settings) *Credentials {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.creds[server]; ok && reflect.DeepEqual(c.settings, settings) {
		return c
	}
	c := &Credentials{name: server, settings: settings, m: m, changed: make(chan struct{}),
		log: m.opts.Logger.With("server", server)}
	m.creds[server] = c
	return c
}

// Retain forgets the credentials of every server not in servers (servers
// gone from the config): a later For of such a name starts from the store
// again. Holders of forgotten Credentials may go on using them.
func (m *Manager) Retain(servers []string) {
	keep := make(map[string]bool, len(servers))
	for _, s := range servers {
		keep[s] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for s := range m.creds {
		if !keep[s] {
			delete(m.creds, s)
		}
	}
}
