package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/loglimit"
	"github.com/plughost/plughost/host/msgtransport"
	"github.com/plughost/plughost/pluginapi"
)

// connect runs one full start-up: plugin process, connection, initialize,
// tools/list. On success the session is live and the status connected.
func (s *Server) connect(ctx context.Context) (*session, error) {
	began := time.Now()
	s.update(func(st *Status) { st.State, st.NextRetry = StateConnecting, time.Time{} })
	sess, err := s.open(ctx)
	if err != nil && s.switchTransport(err) {
		sess, err = s.open(ctx)
	}
	if err != nil {
		return nil, err
	}
	init, err := s.initialize(ctx, sess)
	if err == nil {
		err = s.listTools(ctx, sess)
	}
	if err != nil {
		s.teardown(sess, false)
		return nil, err
	}
	diagCtx, cancel := context.WithTimeout(ctx, time.Second)
	d, derr := sess.plugin.Diagnostics(diagCtx)
	cancel()
	if derr == nil {
		sess.serverPID = d.PID
	}
	took := time.Since(began)
	s.update(func(st *Status) {
		st.State = StateConnected
		st.StartupDuration = took
		st.ServerName, st.ServerVersion = init.ServerInfo.Name, init.ServerInfo.Version
		st.ProtocolVersion = init.ProtocolVersion
		st.PluginPID, st.ServerPID = sess.plugin.PID(), sess.serverPID
		st.Warnings = s.spec.Masker.MaskAll(d.Warnings)
		st.Path = sess.path
	})
	s.logger.Info("connected", "tools", s.Status().Tools, "startup", took.Round(time.Millisecond))
	return sess, nil
}

// open launches the plugin and opens the connection.
func (s *Server) open(ctx context.Context) (*session, error) {
	t := s.limits().Timeouts
	pc, err := pluginapi.NewClient(pluginapi.ClientConfig{
		Path:         s.spec.PluginPath,
		SHA256:       s.spec.PluginSHA256,
		Env:          s.spec.PluginEnv,
		Logger:       loglimit.Unlimited(s.logger).Named("plugin"), // the plugin's own log, relayed whole
		StartTimeout: t.Start,
	})
	if err != nil {
		if errors.Is(err, pluginapi.ErrPinMismatch) {
			return nil, fmt.Errorf("start transport plugin: %s: %w (reinstall the pinned plugin or update the pin)", s.spec.PinSetting, err)
		}
		return nil, phaseError("start transport plugin", t.Start, "start_seconds", err)
	}
	openCtx, cancel := context.WithTimeout(ctx, t.Initialize)
	defer cancel()
	req := pluginapi.OpenRequest{ServerName: s.spec.Name, Config: s.spec.Config}
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
	conn, err := pc.Transport().Open(openCtx, req)
	if err != nil {
		pc.Kill()
		return nil, phaseError("connect", t.Initialize, "initialize_seconds", err)
	}
	tr := msgtransport.New(conn, s.logger)
	path := "relay"
	if pluginapi.UsesDirectPipes(conn) {
		path = "direct-pipes"
	}
	sess := &session{
		path:      path,
		plugin:    pc,
		transport: tr,
		client:    client.NewClient(tr, client.WithProtocolVersion(protocolVersion)),
		relist:    make(chan struct{}, 1),
	}
	if err := sess.client.Start(ctx); err != nil {
		s.teardown(sess, false)
		return nil, fmt.Errorf("start MCP client: %w", err)
	}
	sess.client.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			select {
			case sess.relist <- struct{}{}:
			default: // a re-list is already pending; it will see this change too
			}
		}
	})
	return sess, nil
}

func (s *Server) initialize(ctx context.Context, sess *session) (*mcp.InitializeResult, error) {
	limit := s.limits().Timeouts.Initialize
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocolVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "plughost", Version: s.spec.ClientVersion}
	res, err := sess.client.Initialize(ctx, req)
	if err != nil {
		return nil, phaseError("initialize", limit, "initialize_seconds", err)
	}
	return res, nil
}

// listTools lists every page of the server's tools and publishes them,
// making sess the live session.
func (s *Server) listTools(ctx context.Context, sess *session) error {
	limit := s.limits().Timeouts.ListTools
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := sess.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return phaseError("list tools", limit, "list_tools_seconds", err)
	}
	s.mu.Lock()
	s.tools = res.Tools
	s.live = sess
	s.mu.Unlock()
	s.update(func(st *Status) { st.Tools = len(res.Tools) })
	return nil
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
