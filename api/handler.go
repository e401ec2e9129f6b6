package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/lib/callstats"
	"github.com/plughost/plughost/lib/origin"
	"github.com/plughost/plughost/manage"
	"github.com/plughost/plughost/oauth"
)

// maxBody caps a request body (a tool call's arguments).
const maxBody = 4 << 20

// Options configure the API handler.
type Options struct {
	// Host is the running host the API shows and drives.
	Host *host.Host
	// Manager loads and applies its configuration (for reload).
	Manager *manage.Manager
	// Version is plughost's version, reported by /api/status.
	Version string
	// Logger receives what the API does (reloads); nil discards it.
	Logger hclog.Logger
	// Stop, when closed, ends the event streams (serve closes it when it
	// starts shutting down, so the requests in flight can drain).
	Stop <-chan struct{}
	// OAuthInbox receives the browser's redirect of logins started with
	// POST /api/servers/{name}/login; serve it at its redirect URI without
	// the token (serve mounts it at /oauth/callback). nil: no API login.
	OAuthInbox *oauth.Inbox
	// Connect is the gateway's address and token that GET /api/connect
	// turns into client configurations; nil: the API has no gateway.
	Connect *gateway.Snippet
	// EventPing is how often an idle event stream sends a ping comment
	// (15 seconds if 0).
	EventPing time.Duration
}

// Status is the body of GET /api/status.
type Status struct {
	// PID is serve's process id.
	PID int `json:"pid"`
	// Version is plughost's version.
	Version string `json:"version"`
	// ConfigFile is the user config file serve watches.
	ConfigFile string `json:"config_file"`
	// Apply is the outcome of the last reload (a rejected config says why).
	Apply host.ApplyStatus `json:"apply"`
	// Ready is true when every enabled server is connected and the session
	// store (when kept outside the process, e.g. Redis) answers — /readyz's
	// verdict.
	Ready bool `json:"ready"`
	// Store is the session store kept outside the process and whether it
	// answered; absent for the in-memory store.
	Store *host.StoreReadiness `json:"store,omitempty"`
	// ConfigVersion is the user config file's version (what other
	// answers call "version"; "version" here is plughost's).
	ConfigVersion string `json:"config_version"`
}

// ServerList is the body of GET /api/servers: one page of the servers.
type ServerList struct {
	// Servers are the page's servers, sorted by name: every configured
	// server when they fit in one page (DefaultPageSize, or ?limit=).
	Servers []host.ServerRow `json:"servers"`
	// NextCursor, when set, is the ?cursor= of the next page; absent on
	// the last.
	NextCursor string `json:"next_cursor,omitempty"`
	// Totals count every configured server, not only the page's.
	Totals host.ServerTotals `json:"totals"`
	// Apply is the outcome of the last reload.
	Apply host.ApplyStatus `json:"apply"`
	// Version is the user config file's version.
	Version string `json:"version"`
}

// Views returns the servers as host.Host.ServerListings has them.
func (l ServerList) Views() []host.ServerListing {
	out := make([]host.ServerListing, len(l.Servers))
	for i, r := range l.Servers {
		out[i] = r.Listing()
	}
	return out
}

// ToolList is the body of GET /api/tools.
type ToolList struct {
	// Tools are what a new session's model sees, sorted by name.
	Tools []registry.Tool `json:"tools"`
}

// New returns the API's handler; mount it at /api/ behind the bearer token.
func New(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	a := &handler{o: o}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/status", a.status)
	mux.HandleFunc("GET /api/servers", a.servers)
	mux.HandleFunc("GET /api/servers/{name}", a.server)
	mux.HandleFunc("GET /api/tools", a.tools)
	mux.HandleFunc("GET /api/context-cost", a.contextCost)
	mux.HandleFunc("POST /api/tools/{name}/call", a.call)
	mux.HandleFunc("POST /api/reload", a.reload)
	mux.HandleFunc("POST /api/servers", a.addServer)
	mux.HandleFunc("PUT /api/servers/{name}", a.updateServer)
	mux.HandleFunc("DELETE /api/servers/{name}", a.removeServer)
	mux.HandleFunc("POST /api/servers/{name}/enabled", a.setEnabled)
	mux.HandleFunc("POST /api/servers/{name}/test", a.test)
	mux.HandleFunc("GET /api/servers/{name}/tools", a.serverTools)
	mux.HandleFunc("POST /api/servers/{name}/login", a.login)
	mux.HandleFunc("POST /api/servers/{name}/approve", a.approve)
	mux.HandleFunc("GET /api/servers/{name}/resources", a.listResources)
	mux.HandleFunc("GET /api/servers/{name}/resource-templates", a.listTemplates)
	mux.HandleFunc("POST /api/servers/{name}/resources/read", a.readResource)
	mux.HandleFunc("GET /api/servers/{name}/prompts", a.listPrompts)
	mux.HandleFunc("POST /api/servers/{name}/prompts/get", a.getPrompt)
	mux.HandleFunc("POST /api/servers/{name}/complete", a.complete)
	mux.HandleFunc("POST /api/search", a.search)
	mux.HandleFunc("GET /api/events", a.events)
	mux.HandleFunc("GET /api/activity", a.activity)
	mux.HandleFunc("GET /api/connect", a.connectInfo)
	mux.HandleFunc("POST /api/connect/token", a.connectToken)
	mux.HandleFunc("GET /api/clients", a.clients)
	mux.HandleFunc("POST /api/clients", a.addClient)
	mux.HandleFunc("DELETE /api/clients/{name}", a.removeClient)
	mux.HandleFunc("GET /api/settings", a.settings)
	mux.HandleFunc("PUT /api/settings", a.updateSettings)
	mux.HandleFunc("GET /api/catalog", a.getCatalog)
	mux.HandleFunc("POST /api/catalog/{id}/install", a.install)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &Error{Status: http.StatusNotFound, Code: CodeNotFound,
			Message: fmt.Sprintf("no API endpoint %s %s (see docs/api.md)", r.Method, r.URL.Path)})
	})
	return sameOrigin(mux)
}

type handler struct{ o Options }

func (a *handler) status(w http.ResponseWriter, r *http.Request) {
	ready := a.o.Host.CheckReadiness(r.Context())
	writeJSON(w, http.StatusOK, Status{
		PID: os.Getpid(), Version: a.o.Version, ConfigFile: a.o.Manager.UserFile(),
		Apply: a.o.Host.LastApply(), Ready: ready.Ready, Store: ready.Store, ConfigVersion: a.version(),
	})
}

func (a *handler) servers(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r.URL.Query())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, a.serverList(r.Context(), p))
}

// serverList is the body of GET /api/servers (and of the servers event):
// the page p asks for.
func (a *handler) serverList(ctx context.Context, p pageRequest) ServerList {
	page := a.o.Host.ServerRowsPage(ctx, p.cursor, p.limit)
	return ServerList{Servers: page.Rows, NextCursor: page.Next, Totals: page.Totals,
		Apply: a.o.Host.LastApply(), Version: a.version()}
}

// ServerDetail is the body of GET /api/servers/{name}.
type ServerDetail struct {
	host.ServerDetail
	// Stats are the server's calls over the last minutes, with a
	// per-minute series.
	Stats callstats.Stats `json:"stats"`
	// Version is the user config file's version.
	Version string `json:"version"`
}

func (a *handler) server(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	d, err := a.o.Host.ServerDetail(r.Context(), name)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ServerDetail{ServerDetail: d, Stats: a.o.Host.CallStats(name), Version: a.version()})
}

// version returns the user file's version ("" when it cannot be read:
// writes are then accepted without the check, as from the CLI).
func (a *handler) version() string {
	v, err := a.o.Manager.Version()
	if err != nil {
		a.o.Logger.Debug("config version", "error", err)
	}
	return v
}

func (a *handler) tools(w http.ResponseWriter, r *http.Request) {
	s := a.o.Host.NewSession()
	defer s.Close(context.WithoutCancel(r.Context()))
	tools, err := s.Tools(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ToolList{Tools: tools})
}

// ContextCostList is the body of GET /api/context-cost.
type ContextCostList struct {
	// Costs are the tool definitions' size with discovery off, then on.
	Costs []host.ContextCost `json:"costs"`
}

func (a *handler) contextCost(w http.ResponseWriter, r *http.Request) {
	costs, err := a.o.Host.ContextCosts(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ContextCostList{Costs: costs})
}

// call runs one tool in a session of its own, as `plughost call` does.
func (a *handler) call(w http.ResponseWriter, r *http.Request) {
	args, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBadRequest,
			Message: fmt.Sprintf("the arguments are larger than %d bytes", maxBody)})
		return
	}
	name := r.PathValue("name")
	if args = bytes.TrimSpace(args); len(args) == 0 {
		args = []byte("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		writeError(w, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest,
			Message: fmt.Sprintf("tool %q: the body must be the arguments as a JSON object, like {\"key\": \"value\"}", name)})
		return
	}
	s := a.o.Host.NewSession()
	defer s.Close(context.WithoutCancel(r.Context()))
	res, err := s.CallWith(r.Context(), name, args, host.CallOptions{})
	var body json.RawMessage
	if err == nil {
		body, err = res.JSON() // the server's result, every member kept
	}
	var (
		unknown *host.UnknownToolError
		held    *host.QuarantinedToolError
		needs   *host.NeedsLoginError
	)
	switch {
	case errors.As(err, &unknown), errors.As(err, &held):
		writeError(w, err)
	case errors.As(err, &needs):
		writeError(w, &Error{Status: http.StatusBadGateway, Code: CodeNeedsLogin, Message: err.Error(), NeedsLogin: needs})
	case err != nil:
		writeError(w, &Error{Status: http.StatusBadGateway, Code: CodeCallFailed, Message: err.Error()})
	default:
		writeJSON(w, http.StatusOK, body)
	}
}

// reload loads the config file again and applies it (as the file watch
// and SIGHUP do).
func (a *handler) reload(w http.ResponseWriter, _ *http.Request) {
	res, err := a.o.Manager.Reload(a.o.Host)
	if err != nil {
		writeError(w, err)
		return
	}
	a.o.Logger.Info("config reloaded through the API", "result", res.String())
	writeJSON(w, http.StatusOK, res)
}

// sameOrigin refuses, before any handler runs, a request a browser sent
// from another origin, and a request with a body that is not JSON (which
// an HTML form could send without a CORS preflight).
func sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !origin.Own(o, r.Host) {
			writeError(w, &Error{Status: http.StatusForbidden, Code: CodeForbidden,
				Message: fmt.Sprintf("requests from origin %q are refused: the API serves only its own origin", o)})
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && r.ContentLength != 0 {
			if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
				writeError(w, &Error{Status: http.StatusUnsupportedMediaType, Code: CodeForbidden,
					Message: "send the request body as JSON with \"Content-Type: application/json\""})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
