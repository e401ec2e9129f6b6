package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/audit"
	"github.com/plughost/plughost/host/routing"
	"github.com/plughost/plughost/lib/rawjson"
	"github.com/plughost/plughost/pluginapi"
)

// The audit log (docs/audit.md) records every tools/call, resources/read
// and prompts/get of a session, whatever door it came through (the stdio
// and HTTP gateways, the API, the Go API: they all call Session), and
// every server→client request the router answers (routingServers.Answered).

// answerLookupTimeout bounds reading an answered request's session for its
// client's name.
const answerLookupTimeout = time.Second

// newAudit returns the audit log cfg asks for, or nil when it is off. Its
// settings are read once: a reload does not change them.
func (h *Host) newAudit(cfg *config.Config) *audit.Log {
	a := cfg.MCP.Audit
	if !a.Enabled || a.Dir == "" {
		return nil
	}
	return audit.New(audit.Options{Dir: a.Dir, MaxFileBytes: a.MaxFileBytes(), MaxFiles: a.MaxFiles,
		Masker: h.masker, Logger: h.logger.Named("audit")})
}

// Activity is what the audit log shows of the recent calls (GET
// /api/activity).
type Activity struct {
	// Enabled is false when tools.mcp.audit.enabled is off: nothing is
	// recorded.
	Enabled bool `json:"enabled"`
	// Dir is where the log files are written.
	Dir string `json:"dir,omitempty"`
	// Records are the newest records kept in memory that match the
	// filter, newest first.
	Records []audit.Record `json:"records"`
	// Stats count records written, dropped and lost to disk errors since
	// plughost started.
	Stats audit.Stats `json:"stats"`
}

// Activity returns the newest audit records that match f.
func (h *Host) Activity(f audit.Filter) Activity {
	if h.audit == nil {
		return Activity{Records: []audit.Record{}}
	}
	recs := h.audit.Recent(f)
	if recs == nil {
		recs = []audit.Record{}
	}
	return Activity{Enabled: true, Dir: h.audit.Dir(), Records: recs, Stats: h.audit.Stats()}
}

// clientLabel is audit.Record.Client of a session's ClientName.
func clientLabel(name string) string {
	if name == "" {
		return audit.AdminClient
	}
	return name
}

// auditCall records a tools/call that began at began.
func (s *Session) auditCall(began time.Time, args json.RawMessage, r CallResult, err error) {
	if s.h.audit == nil {
		return
	}
	rec := audit.Record{Time: began, Client: clientLabel(s.client), Session: s.id, Server: r.Server,
		Method: "tools/call", Name: r.Tool, DurationMS: audit.Milliseconds(time.Since(began)),
		BytesIn: len(args), ArgsSHA256: audit.HashArgs(args)}
	switch {
	case err != nil:
		rec.Outcome, rec.Code = outcomeOf(err)
		if rec.Outcome == audit.Error && !validArgs(args) {
			rec.Outcome = audit.Invalid
		}
	case r.Task != nil:
		rec.Outcome, rec.BytesOut = audit.Task, len(r.Task)
	case r.Result.IsError:
		rec.Outcome, rec.BytesOut = audit.ToolError, resultSize(r.Result)
	default:
		rec.Outcome, rec.BytesOut = audit.OK, resultSize(r.Result)
	}
	s.h.audit.Write(rec)
}

// validArgs reports whether args are what callTool accepts.
func validArgs(args json.RawMessage) bool {
	args = bytes.TrimSpace(args)
	return len(args) == 0 || (args[0] == '{' && json.Valid(args)) || string(args) == "null"
}

// callee is what a request went to: the server and the server's own name
// of the resource or prompt (set once known).
type callee struct{ server, name string }

// audited reports whether Request records method.
func audited(method string) bool { return method == "resources/read" || method == "prompts/get" }

// auditRequest records a resources/read or prompts/get that began at
// began; to says where it went, when that became known.
func (s *Session) auditRequest(began time.Time, method string, params json.RawMessage, to callee, res json.RawMessage, err error) {
	if to.name == "" { // not resolved: the name as the client sent it
		key := "uri"
		if method == "prompts/get" {
			key = "name"
		}
		to.name, _ = rawjson.String(params, key)
	}
	rec := audit.Record{Time: began, Client: clientLabel(s.client), Session: s.id, Server: to.server,
		Method: method, Name: to.name, DurationMS: audit.Milliseconds(time.Since(began)),
		BytesIn: len(params), BytesOut: len(res), ArgsSHA256: audit.HashArgs(params)}
	rec.Outcome, rec.Code = outcomeOf(err)
	s.h.audit.Write(rec)
}

// Answered records a server→client request the router answered.
func (s routingServers) Answered(r routing.Answer) {
	h := s.h
	if h.audit == nil {
		return
	}
	rec := audit.Record{Time: r.Began, Client: h.answerClient(r.Session), Session: r.Session, Server: r.Server,
		Method: r.Method, DurationMS: audit.Milliseconds(r.Took), BytesIn: len(r.Params), BytesOut: len(r.Result)}
	rec.Outcome, rec.Code = outcomeOf(r.Err)
	switch {
	case !r.Routed:
		rec.Outcome, rec.Code = audit.NotRouted, 0
	case r.Err == nil && r.Method == "elicitation/create":
		switch action, _ := rawjson.String(r.Result, "action"); action {
		case "decline":
			rec.Outcome = audit.Declined
		case "cancel":
			rec.Outcome = audit.Dismissed
		}
	}
	h.audit.Write(rec)
}

// answerClient is the audit.Record.Client of session id ("" for none).
func (h *Host) answerClient(id string) string {
	if id == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerLookupTimeout)
	defer cancel()
	st, err := h.sessions.Load(ctx, id)
	if err != nil {
		return "" // ended meanwhile, or the store is down: the record still counts
	}
	return clientLabel(st.ClientName)
}

// outcomeOf classifies a call's error (and its JSON-RPC code, for an
// *RPCError).
func outcomeOf(err error) (audit.Outcome, int) {
	var (
		rpc     *RPCError
		unknown *UnknownToolError
		held    *QuarantinedToolError
		down    *ServerUnavailableError
		login   *NeedsLoginError
	)
	switch {
	case err == nil:
		return audit.OK, 0
	case errors.As(err, &login):
		return audit.NeedsLogin, 0
	case errors.As(err, &unknown):
		return audit.Unknown, 0
	case errors.As(err, &held):
		return audit.Quarantined, 0
	case errors.As(err, &down), errors.Is(err, errServerNotRunning):
		return audit.Unavailable, 0
	case errors.As(err, &rpc):
		return audit.RPCError, rpc.Code
	case errors.Is(err, context.DeadlineExceeded), pluginapi.KindOf(err) == pluginapi.KindTimeout:
		return audit.Timeout, 0
	case errors.Is(err, context.Canceled), pluginapi.KindOf(err) == pluginapi.KindCanceled:
		return audit.Canceled, 0
	}
	return audit.Error, 0
}
