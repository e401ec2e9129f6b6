package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/msgtransport"
	"github.com/plughost/plughost/lib/loglimit"
	"github.com/plughost/plughost/pluginapi"
)

// connect runs one full start-up: plugin process, connection, initialize,
// tools/list. On success the connection is live and the status connected.
func (s *Server) connect(ctx context.Context) (*connection, error) {
	began := time.Now()
	installing := ""
	if s.spec.Installer != "" && !s.connectedOnce.Load() {
		installing = s.spec.Installer
	}
	s.update(func(st *Status) { st.State, st.NextRetry, st.Installing = StateConnecting, time.Time{}, installing })
	if installing != "" {
		defer s.update(func(st *Status) { st.Installing = "" }) // after a failure too
	}
	conn, err := s.open(ctx)
	if err != nil && s.switchTransport(err) {
		conn, err = s.open(ctx)
	}
	if err != nil {
		return nil, err
	}
	init, err := s.initialize(ctx, conn)
	if err == nil {
		err = s.listTools(ctx, conn)
	}
	if err == nil {
		s.mu.Lock()
		s.init = init
		s.mu.Unlock()
	}
	if err != nil {
		s.teardown(conn, false)
		return nil, s.withLimitHint(err)
	}
	diagCtx, cancel := context.WithTimeout(ctx, time.Second)
	d, derr := conn.plugin.ConnectionDiagnostics(diagCtx, conn.connID)
	cancel()
	if derr == nil {
		conn.serverPID = d.PID
	}
	took := time.Since(began)
	s.connectedOnce.Store(true)
	s.update(func(st *Status) {
		st.State = StateConnected
		st.Installing = ""
		st.StartupDuration = took
		st.ServerName, st.ServerVersion = init.name()
		st.ProtocolVersion = init.ProtocolVersion
		st.PluginPID, st.ServerPID = conn.plugin.PID(), conn.serverPID
		st.Warnings = s.spec.Masker.MaskAll(d.Warnings)
		st.Path = conn.path
	})
	s.logger.Info("connected", "tools", s.Status().Tools, "startup", took.Round(time.Millisecond))
	if s.spec.Router != nil {
		go s.spec.Router.Connected(s.spec.Name)
	}
	return conn, nil
}

// open launches the plugin (or takes the in-process transport) and opens
// the connection.
func (s *Server) open(ctx context.Context) (*connection, error) {
	t := s.tuning().Timeouts
	pc, err := s.launch(t.Start)
	if err != nil {
		if errors.Is(err, pluginapi.ErrPinMismatch) {
			return nil, fmt.Errorf("start transport plugin: %s: %w (reinstall the pinned plugin or update the pin)", s.spec.PinSetting, err)
		}
		return nil, phaseError("start transport plugin", t.Start, "start_seconds", err)
	}
	openCtx, cancel := context.WithTimeout(ctx, s.initializeBound())
	defer cancel()
	req := pluginapi.OpenRequest{ServerName: s.spec.Name, Config: s.spec.Config, MaxMessageBytes: s.spec.Limits.MaxMessageBytes}
	if l := s.spec.Limits; l.SpoolDir != "" && l.MaxResultBytes > req.MessageLimit() {
		req.Spool = &pluginapi.ResultSpool{Dir: l.SpoolDir, MaxBytes: l.MaxResultBytes,
			NamePrefix: artifacts.NamePrefix(s.spec.Name, "result"),
			MaxSetting: l.MaxResultSetting, MessageSetting: l.MaxMessageSetting}
	}
	if s.spec.DirectPipes || s.spec.Auth != nil {
		d, err := pc.Transport().Describe(openCtx)
		req.WantDirectPipes = s.spec.DirectPipes && err == nil && d.HasFeature(pluginapi.FeatureDirectPipes)
		if s.spec.Auth != nil {
			if err != nil || !d.HasFeature(pluginapi.FeatureCredentials) {
				pc.Kill()
				return nil, &pluginapi.Error{Op: "open", Kind: pluginapi.KindInvalidConfig, Err: fmt.Errorf(
					"oauth: the %s transport plugin (%s) cannot send OAuth credentials (it lacks the %q feature); remove \"oauth\" or use a transport that supports it",
					s.spec.Transport, s.spec.PluginPath, pluginapi.FeatureCredentials)}
			}
			req.Credentials = s.spec.Auth
		}
	}
	stream, err := pc.Transport().Open(openCtx, req)
	if err != nil {
		pc.Kill()
		return nil, phaseError("connect", s.initializeBound(), "initialize_seconds", err)
	}
	tr := msgtransport.New(stream, s.logger)
	throttled := make(chan struct{}, 1)
	tr.SetFloodLimit(s.spec.floodLimit(), func() {
		select {
		case throttled <- struct{}{}:
		default: // the supervisor has yet to see the last one
		}
	})
	path := "relay"
	if pluginapi.UsesDirectPipes(stream) {
		path = "direct-pipes"
	}
	conn := &connection{
		path:      path,
		plugin:    pc,
		connID:    pluginapi.ConnectionID(stream),
		transport: tr,
		relist:    make(chan struct{}, 1),
		throttled: throttled,
	}
	s.serveRaw(conn)
	if err := tr.Start(ctx); err != nil {
		s.teardown(conn, false)
		return nil, fmt.Errorf("start the message transport: %w", err)
	}
	return conn, nil
}

// initializeBound is the bound of opening and initializing the server:
// the initialize timeout, or for a package runner's first start at least
// FirstStartBound (Spec.Installer).
func (s *Server) initializeBound() time.Duration {
	t := s.tuning().Timeouts.Initialize
	if s.spec.Installer != "" && !s.connectedOnce.Load() {
		return max(t, FirstStartBound)
	}
	return t
}

// launch starts the plugin process, or wraps the in-process transport.
func (s *Server) launch(startTimeout time.Duration) (pluginProcess, error) {
	if s.spec.InProcess != nil {
		return inProcess{s.spec.InProcess}, nil
	}
	cfg := pluginapi.ClientConfig{
		Path:         s.spec.PluginPath,
		SHA256:       s.spec.PluginSHA256,
		Env:          s.spec.PluginEnv,
		Logger:       loglimit.Unlimited(s.logger).Named("plugin"), // the plugin's own log, relayed whole
		StartTimeout: startTimeout,
	}
	if s.spec.Plugins != nil && s.spec.DirectPipes {
		return s.spec.Plugins.acquire(cfg)
	}
	pc, err := pluginapi.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return pc, nil
}

// initialize runs the MCP handshake over the message transport itself,
// declaring ClientCapabilities, and keeps the server's answer raw.
func (s *Server) initialize(ctx context.Context, conn *connection) (Initialized, error) {
	limit := s.initializeBound()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	params, _ := json.Marshal(struct { // strings and valid JSON always encode
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    json.RawMessage    `json:"capabilities"`
		ClientInfo      mcp.Implementation `json:"clientInfo"`
	}{protocolVersion, ClientCapabilities, mcp.Implementation{Name: "plughost", Version: s.spec.ClientVersion}})
	raw, err := conn.transport.Request(ctx, msgtransport.Request{Method: string(mcp.MethodInitialize), Params: params})
	if err != nil {
		return Initialized{}, phaseError("initialize", limit, "initialize_seconds", err)
	}
	var res struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    json.RawMessage `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.ProtocolVersion == "" {
		return Initialized{}, fmt.Errorf("initialize: the server's answer is not an initialize result: %s", truncate(raw, 200))
	}
	if !mcp.IsValidProtocolVersion(res.ProtocolVersion) {
		return Initialized{}, fmt.Errorf("initialize: the server speaks MCP %q, which plughost does not", res.ProtocolVersion)
	}
	note := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)}}
	if err := conn.transport.SendNotification(ctx, note); err != nil {
		return Initialized{}, phaseError("initialize", limit, "initialize_seconds", err)
	}
	return Initialized{ProtocolVersion: res.ProtocolVersion, Capabilities: res.Capabilities, ServerInfo: res.ServerInfo, Instructions: res.Instructions}, nil
}

// name returns the server's name and version from its serverInfo.
func (i Initialized) name() (string, string) {
	var info mcp.Implementation
	_ = json.Unmarshal(i.ServerInfo, &info) // absent or odd: shown as unknown
	return info.Name, info.Version
}

// listTools lists every page of the server's tools and publishes them,
// making conn the live connection.
func (s *Server) listTools(ctx context.Context, conn *connection) error {
	limit := s.tuning().Timeouts.ListTools
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tools, err := s.listRaw(ctx, conn)
	if err != nil {
		return phaseError("list tools", limit, "list_tools_seconds", err)
	}
	s.mu.Lock()
	s.tools = tools
	s.live = conn
	s.mu.Unlock()
	s.update(func(st *Status) { st.Tools = len(tools) })
	return nil
}

// maxListPages bounds the pages of one tools/list, so a server answering
// with a cursor forever cannot keep the host listing.
const maxListPages = 1000

// listRaw sends tools/list over the message transport itself, page by page,
// and keeps each definition as the raw JSON the server sent: mcp-go's typed
// tool drops schema keywords it does not model. Entries that are not
// objects with a string name are dropped with a warning.
func (s *Server) listRaw(ctx context.Context, conn *connection) ([]json.RawMessage, error) {
	all := []json.RawMessage{} // not nil: listed, possibly nothing
	cursor := ""
	for page := 1; ; page++ {
		if page > maxListPages {
			return nil, fmt.Errorf("more than %d pages of tools; the server keeps answering with a nextCursor", maxListPages)
		}
		req := transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(fmt.Sprintf("plughost-tools-list-%d", s.listID.Add(1))),
			Method:  string(mcp.MethodToolsList),
		}
		if cursor != "" {
			req.Params = map[string]string{"cursor": cursor}
		}
		resp, err := conn.transport.SendRequest(ctx, req)
		if err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("server answered tools/list with error %d: %s", resp.Error.Code, resp.Error.Message)
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			return nil, fmt.Errorf("tools/list result: %w", err)
		}
		for _, t := range res.Tools {
			var head struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(t, &head); err != nil || head.Name == "" {
				s.logger.Warn("dropping a tool definition without a name", "definition", truncate(t, 200))
				continue
			}
			all = append(all, t)
		}
		if res.NextCursor == "" || res.NextCursor == cursor {
			return all, nil
		}
		cursor = res.NextCursor
	}
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// switchTransport moves to the fallback transport when err says the server
// speaks another protocol than the auto-detected one. It reports whether it
// switched (at most once per Server).
func (s *Server) switchTransport(err error) bool {
	fb := s.spec.Fallback
	if fb == nil || pluginapi.KindOf(err) != pluginapi.KindProtocolMismatch {
		return false
	}
	from := s.spec.Transport
	s.logger.Info("server refused the auto-detected transport; switching", "from", from, "to", fb.Transport, "reason", err)
	s.mu.Lock()
	s.spec.Transport, s.spec.PluginPath, s.spec.PluginSHA256, s.spec.Config = fb.Transport, fb.PluginPath, fb.PluginSHA256, fb.Config
	s.spec.Fallback = nil
	s.mu.Unlock()
	s.update(func(st *Status) {
		st.Transport = fb.Transport
		st.TransportNote = fmt.Sprintf("type not set: tried %s (the default for url), the server refused it, using %s", from, fb.Transport)
	})
	return true
}
