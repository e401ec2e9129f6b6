// Package remote is the transport shared by the sse and http plugins: it
// connects to a remote MCP server with plughost's legacy SSE client
// transport (sseclient) or mcp-go's streamable-HTTP one, through an *http.Client that enforces httppolicy (headers
// only to the server's origin, protocol headers first, only same-host
// http→https redirects), and exposes it as a pluginapi.Conn via reqconn.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/internal/httppolicy"
	"github.com/plughost/plughost/plugins/internal/reqconn"
	"github.com/plughost/plughost/plugins/internal/sseclient"
)

// Transport kinds.
const (
	// KindSSE is the legacy HTTP+SSE transport (GET stream, POST endpoint).
	KindSSE = "sse"
	// KindHTTP is the streamable-HTTP transport.
	KindHTTP = "http"
)

// Version is the version of the remote transports.
const Version = "0.1.0"

// Waits for the legacy SSE endpoint event. A legacy server announces its
// endpoint at once; a streamable-HTTP server that accepts the GET never does.
const (
	defaultEndpointWait = 10 * time.Second
	endpointMargin      = time.Second
	minEndpointWait     = 500 * time.Millisecond
)

// Transport implements pluginapi.Transport for one kind. Safe for concurrent use.
type Transport struct {
	kind   string
	logger hclog.Logger
	base   http.RoundTripper
}

var _ pluginapi.Transport = (*Transport)(nil)

// New returns the transport of kind (KindSSE or KindHTTP). base is the HTTP
// round tripper under the policy (nil: a clone of http.DefaultTransport).
func New(kind string, logger hclog.Logger, base http.RoundTripper) *Transport {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Transport{kind: kind, logger: logger, base: base}
}

// Describe reports the transport's name and version.
func (t *Transport) Describe(context.Context) (pluginapi.Description, error) {
	return pluginapi.Description{Name: t.kind, Version: Version,
		Features: []string{pluginapi.FeatureDiagnostics, pluginapi.FeatureCredentials}}, nil
}

// Validate strictly decodes the config without connecting.
func (t *Transport) Validate(_ context.Context, raw json.RawMessage) error {
	_, err := ParseConfig(t.kind, raw)
	return err
}

// Open connects to the server. For sse, a server that refuses the legacy
// handshake in a way that shows it speaks streamable HTTP gets a
// KindProtocolMismatch error, so a host that auto-detected the type can retry
// with http.
func (t *Transport) Open(ctx context.Context, req pluginapi.OpenRequest) (pluginapi.Conn, error) {
	cfg, err := ParseConfig(t.kind, req.Config)
	if err != nil {
		return nil, withOp(err, "open")
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	log := t.logger.With("server", req.ServerName)
	probe := &handshakeProbe{base: &boundedBodies{base: base, limit: req.MessageLimit(), getStreams: t.kind == KindSSE, spool: req.Spool, logger: log}}
	client, err := httppolicy.NewClient(httppolicy.Policy{ServerURL: cfg.URL, Headers: cfg.Headers, Base: probe, Credentials: req.Credentials})
	if err != nil {
		return nil, &pluginapi.Error{Op: "open", Kind: pluginapi.KindInvalidConfig, Err: err}
	}
	factory := t.factory(ctx, cfg, client, req.MessageLimit(), log)
	conn, err := reqconn.Open(ctx, factory, reqconn.Options{Logger: log})
	if err != nil {
		return nil, t.classify(err, probe, cfg)
	}
	warnings := httppolicy.Warnings(cfg.URL)
	for _, w := range warnings {
		log.Warn(w)
	}
	return &diagConn{Conn: conn, warnings: warnings}, nil
}

// factory makes the transport of t's kind: mcp-go's streamable-HTTP
// client, or sseclient's legacy SSE client, which unlike mcp-go's hands the
// server's requests (sampling, elicitation, roots) on.
func (t *Transport) factory(ctx context.Context, cfg Config, client *http.Client, limit int, log hclog.Logger) reqconn.Factory {
	if t.kind == KindHTTP {
		return func() (transport.Interface, error) {
			// The host pins protocol 2025-11-25 (docs/architecture.md), where the
			// server's notifications and requests come on the standalone GET stream.
			//lint:ignore SA1019 the GET stream is current in the protocol version the host pins
			return transport.NewStreamableHTTP(cfg.URL, transport.WithHTTPBasicClient(client), transport.WithContinuousListening())
		}
	}
	endpoint := time.Duration(cfg.EndpointTimeoutSeconds * float64(time.Second))
	if endpoint <= 0 {
		endpoint = defaultEndpointWait
	}
	if d, ok := ctx.Deadline(); ok {
		// Leave time to report why before the host's own deadline passes, so
		// the user sees "looks like a streamable-HTTP server", not a timeout.
		endpoint = max(min(endpoint, time.Until(d)-endpointMargin), minEndpointWait)
	}
	return func() (transport.Interface, error) {
		return sseclient.New(cfg.URL, client, sseclient.Options{EndpointWait: endpoint, MaxEventBytes: limit, Logger: log})
	}
}

// classify turns an open failure into the contract's error, recognising a
// streamable-HTTP server behind an sse config.
func (t *Transport) classify(err error, probe *handshakeProbe, cfg Config) error {
	var pe *pluginapi.Error
	if errors.As(err, &pe) && (pe.Kind == pluginapi.KindTimeout || pe.Kind == pluginapi.KindCanceled) && t.kind != KindSSE {
		return err
	}
	if t.kind == KindSSE {
		if status, eventStream, seen := probe.firstGET(); seen {
			switch {
			case status == http.StatusBadRequest || status == http.StatusNotFound ||
				status == http.StatusMethodNotAllowed || status == http.StatusNotAcceptable:
				return &pluginapi.Error{Op: "open", Kind: pluginapi.KindProtocolMismatch, Err: fmt.Errorf(
					"%s refused the legacy SSE handshake (GET answered %d): the server may speak streamable HTTP; set \"type\": \"http\"",
					httppolicy.Redact(cfg.URL), status)}
			case status == http.StatusOK && eventStream:
				return &pluginapi.Error{Op: "open", Kind: pluginapi.KindProtocolMismatch, Err: fmt.Errorf(
					"%s opened an event stream but announced no endpoint: it looks like a streamable-HTTP server; set \"type\": \"http\" (%v)",
					httppolicy.Redact(cfg.URL), err)}
			}
		}
	}
	return err
}

func withOp(err error, op string) error {
	var pe *pluginapi.Error
	if errors.As(err, &pe) {
		return &pluginapi.Error{Op: op, Kind: pe.Kind, Err: pe.Err}
	}
	return err
}

// handshakeProbe records the status and content type of the first GET (the
// legacy SSE handshake) so a failure can be classified without matching
// error text.
type handshakeProbe struct {
	base http.RoundTripper

	mu          sync.Mutex
	seen        bool
	status      int
	eventStream bool
}

func (p *handshakeProbe) RoundTrip(req *http.Request) (*http.Response, error) {
	base := p.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err == nil && req.Method == http.MethodGet {
		p.mu.Lock()
		if !p.seen {
			p.seen, p.status = true, resp.StatusCode
			p.eventStream = resp.Header.Get("Content-Type") != "" && mediaType(resp.Header.Get("Content-Type")) == "text/event-stream"
		}
		p.mu.Unlock()
	}
	return resp, err
}

func (p *handshakeProbe) firstGET() (status int, eventStream, seen bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.eventStream, p.seen
}

// diagConn adds the connection's warnings to diagnostics.
type diagConn struct {
	pluginapi.Conn
	warnings []string
}

// Diagnostics reports the connection's warnings.
func (c *diagConn) Diagnostics() pluginapi.Diagnostics {
	return pluginapi.Diagnostics{Warnings: c.warnings}
}
