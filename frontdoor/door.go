package frontdoor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/dashboard"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/origin"
	"github.com/plughost/plughost/lib/secret"
)

// Options configure a Door.
type Options struct {
	// Listener accepts the connections (see Listen).
	Listener net.Listener
	// Token is required as "Authorization: Bearer <token>" on every route
	// but /healthz and public mounts; empty means no auth, which only a
	// loopback listener accepts.
	Token secret.String
	// AllowedOrigins lists the web pages, besides the server's own, whose
	// requests are served (tools.mcp.gateway.allowed_origins).
	AllowedOrigins []string
	// Limits bound requests and shutdown.
	Limits Limits
	// Logger receives the server's own errors; nil discards them.
	Logger hclog.Logger
	// Collectors are exported on /metrics besides the servers' state and
	// the Go runtime (e.g. the gateway's).
	Collectors []prometheus.Collector
}

// Limits bound what one request may cost and how long shutdown waits.
type Limits struct {
	// MaxBodyBytes caps a request body (413 above it).
	MaxBodyBytes int64
	// ReadHeaderTimeout bounds reading the request headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading the whole request, headers and body. Once
	// the body is read, the deadline is lifted: a handler may then run (or
	// stream) as long as it needs.
	ReadTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle that long.
	IdleTimeout time.Duration
	// Drain is how long Serve goes on serving every request once its
	// context ends, with /readyz answering 503 ("draining"), before it
	// stops accepting connections; 0 stops at once.
	Drain time.Duration
	// ShutdownTimeout bounds how long Serve waits for requests in flight
	// once it stops accepting connections.
	ShutdownTimeout time.Duration
}

// LimitsFromConfig returns the limits of tools.mcp.gateway.
func LimitsFromConfig(g config.Gateway) Limits {
	return Limits{
		MaxBodyBytes:      g.MaxRequestBytes(),
		ReadHeaderTimeout: min(10*time.Second, g.ReadTimeout()),
		ReadTimeout:       g.ReadTimeout(),
		IdleTimeout:       g.IdleTimeout(),
		Drain:             g.Drain(),
		ShutdownTimeout:   g.ShutdownTimeout(),
	}
}

// Door is plughost's one HTTP front door: it owns the listener, the
// loopback rule, the bearer token, body and time limits, /healthz, /readyz
// and /metrics, and mounts the front ends (the MCP gateway at /mcp, /api,
// the dashboard) behind the same auth — except what a browser must reach
// without the token (the dashboard's static page and its login-code
// exchange, an OAuth callback), which MountPublic serves. Mount everything
// before Serve. StopNow is safe for concurrent use.
type Door struct {
	h          *host.Host
	opts       Options
	origins    origin.Rule
	mux        *http.ServeMux
	guard      func(http.Handler) http.Handler
	onShutdown []func()
	draining   atomic.Bool
	now        chan struct{} // closed by StopNow
	stopNow    sync.Once
}

var _ dashboard.Mounter = (*Door)(nil)

// New prepares a door for h. It refuses to serve without a token on an
// address that is not loopback.
func New(h *host.Host, o Options) (*Door, error) {
	if o.Listener == nil {
		return nil, errors.New("front door: no listener")
	}
	if o.Token == "" && !isLoopbackAddr(o.Listener.Addr()) {
		return nil, fmt.Errorf("front door: refusing to serve on %s without a token: it is not a loopback address; turn tools.mcp.gateway.auth on", o.Listener.Addr())
	}
	rule, err := origin.New(o.AllowedOrigins)
	if err != nil {
		return nil, fmt.Errorf("front door: tools.mcp.gateway.allowed_origins: %w", err)
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	d := &Door{h: h, opts: o, origins: rule, mux: http.NewServeMux(), now: make(chan struct{})}
	d.guard = func(next http.Handler) http.Handler { return refuseQueryTokens(next) }
	if o.Token != "" {
		d.guard = func(next http.Handler) http.Handler { return requireToken(o.Token, h, next) }
	}
	reg := prometheus.NewRegistry()
	cs := append([]prometheus.Collector{serverCollector{h},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}, o.Collectors...)
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("front door: metrics: %w", err)
		}
	}
	d.mux.HandleFunc("GET /healthz", healthz)
	d.mux.Handle("GET /readyz", d.readiness())
	d.Mount("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return d, nil
}

// Mount serves handler at pattern (http.ServeMux syntax) behind the token.
func (d *Door) Mount(pattern string, handler http.Handler) { d.mux.Handle(pattern, d.guard(handler)) }

// MountClients serves, at pattern, the handler handlerFor returns for the
// request's client: "" for the administrator's token, or the name of the
// configured client (tools.mcp.gateway.clients) whose token it carries.
// Other routes take the administrator's token only. Without auth (a
// loopback listener and no token), a request carrying a client's token is
// that client's, any other the administrator's.
func (d *Door) MountClients(pattern string, handlerFor func(client string) http.Handler) {
	if d.opts.Token != "" {
		d.mux.Handle(pattern, requireTokenFor(d.opts.Token, d.h, handlerFor))
		return
	}
	d.mux.Handle(pattern, refuseQueryTokens(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := ""
		if tok, ok := bearer(r.Header.Get("Authorization")); ok {
			client, _ = d.h.ClientOfToken(tok)
		}
		handlerFor(client).ServeHTTP(w, r)
	})))
}

// MountPublic serves handler at pattern without the token (for what a
// browser reaches by redirect, such as an OAuth callback). The limits and
// the loopback rules still apply; query-string tokens are still refused.
func (d *Door) MountPublic(pattern string, handler http.Handler) {
	d.mux.Handle(pattern, refuseQueryTokens(handler))
}

// OnShutdown registers f to run when Serve starts shutting down, e.g. to
// end long-lived event streams so the requests in flight can drain.
func (d *Door) OnShutdown(f func()) { d.onShutdown = append(d.onShutdown, f) }

// Handler returns every route with the door's checks in front: DNS
// rebinding protection and the origin rule, then the body limit, then (per
// route) the token.
func (d *Door) Handler() http.Handler {
	return guardOrigin(d.origins, limitBody(d.opts.Limits.MaxBodyBytes, d.mux))
}

// StopNow cuts a stopping Serve short: what is left of the drain is
// skipped and the requests in flight are cut instead of awaited (a second
// Ctrl-C or SIGTERM). Before ctx ends it only arms that; the OnShutdown
// functions still run.
func (d *Door) StopNow() { d.stopNow.Do(func() { close(d.now) }) }

// Serve serves until ctx ends, then stops in two steps. It drains for
// Limits.Drain: every request is still served, /readyz answers 503
// ("draining") so load balancers stop sending requests, and responses ask
// clients to close their connections so their next requests open new ones
// (to another replica). Then it shuts down gracefully: it stops accepting
// connections, runs the OnShutdown functions, waits for the requests in
// flight up to Limits.ShutdownTimeout, and then cuts what is left. StopNow
// skips the rest of both waits.
func (d *Door) Serve(ctx context.Context) error {
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	l := d.opts.Limits
	srv := &http.Server{
		Handler:           d.Handler(),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		IdleTimeout:       l.IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          d.opts.Logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true, ForceLevel: hclog.Debug}),
	}
	for _, f := range d.onShutdown {
		srv.RegisterOnShutdown(f)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(d.opts.Listener) }()
	select {
	case err := <-done:
		return fmt.Errorf("front door: serve: %w", err)
	case <-ctx.Done():
	}
	d.drain(srv, l.Drain)
	sctx, cancel := context.WithTimeout(base, l.ShutdownTimeout)
	defer cancel()
	go func() { // StopNow: cut the requests in flight instead of awaiting them
		select {
		case <-d.now:
			cancel()
		case <-sctx.Done():
		}
	}()
	if err := srv.Shutdown(sctx); err != nil {
		if d.stoppingNow() {
			d.opts.Logger.Warn("stopping now: cutting the requests still running")
		} else {
			d.opts.Logger.Warn("requests still running at the end of the shutdown grace; cutting them", "grace", l.ShutdownTimeout)
		}
		cancelBase()
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("front door: serve: %w", err)
	}
	return nil
}

func (d *Door) stoppingNow() bool {
	select {
	case <-d.now:
		return true
	default:
		return false
	}
}

// drain reports not ready and keeps serving for up to period (or until
// StopNow).
func (d *Door) drain(srv *http.Server, period time.Duration) {
	if period <= 0 {
		return
	}
	d.draining.Store(true)
	srv.SetKeepAlivesEnabled(false)
	d.opts.Logger.Info("draining: /readyz answers 503 while requests are still served", "drain", period)
	t := time.NewTimer(period)
	defer t.Stop()
	select {
	case <-t.C:
	case <-d.now:
		d.opts.Logger.Info("draining cut short: stopping now")
	}
}
