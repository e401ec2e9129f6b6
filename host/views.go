package host

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/host/toolscan"
	"github.com/plughost/plughost/lib/callstats"
	"github.com/plughost/plughost/oauth/tokens"
)

// StateNotProbed is the state of an enabled server of a host that was never
// started: nothing is known about it beyond its config.
const StateNotProbed supervisor.State = "not probed"

// ServerListing is one configured server as front ends list it: its status,
// how its transport was chosen, and whether its tools are deferred and why.
type ServerListing struct {
	supervisor.Status
	// Type is the configured type ("" when it is detected from command or
	// url).
	Type string `json:"type"`
	// Detected reports that the transport was detected, not configured.
	Detected bool `json:"detected"`
	// Enabled is the server's "enabled" setting.
	Enabled bool `json:"enabled"`
	// Deferred is the effective deferred state; DeferredReason says why:
	// global, pinned, opt-in or discovery off (config.Server.DeferredState).
	Deferred       bool   `json:"deferred"`
	DeferredReason string `json:"deferred_reason"`
	// Description is the status as one line for people (DescribeState).
	Description string `json:"description"`
	// Waiting counts the server's tools waiting for approval (tool trust;
	// Host.Quarantined has them). Status.Tools counts every tool the
	// server lists, these included.
	Waiting int `json:"waiting"`
	// Flagged counts the server's tools the definition scan flagged,
	// waiting ones included.
	Flagged int `json:"flagged"`
}

// ServerListings returns every configured server, sorted by name.
func (h *Host) ServerListings() []ServerListing {
	st, started := h.st(), h.started()
	out := make([]ServerListing, 0, len(st.order))
	for _, name := range st.order {
		out = append(out, h.listing(st, name, started))
	}
	return out
}

// listing is st.listing with the server's tool trust counts.
func (h *Host) listing(st *setup, name string, started bool) ServerListing {
	l := st.listing(name, started)
	l.Waiting, l.Flagged = h.quarantine.Counts(name)
	return l
}

// listing builds the ServerListing of a configured server of st.
func (st *setup) listing(name string, started bool) ServerListing {
	status, _ := st.status(name)
	srv := st.cfg.MCP.Servers[name]
	if _, running := st.servers[name]; running && !started {
		status.State = StateNotProbed
	}
	if status.Transport == "" {
		status.Transport = srv.Transport()
	}
	d, why := srv.DeferredState(st.cfg.MCP.Discovery.Enabled)
	return ServerListing{
		Status: status, Type: srv.Type, Detected: srv.Type == "" || status.TransportNote != "",
		Enabled: srv.Enabled, Deferred: d, DeferredReason: why, Description: DescribeState(status),
	}
}

// DescribeState renders a status as the one phrase a person wants to read
// in a table or a log line: the state (StateText) and, for an OAuth
// server, its login (LoginText) — "connected, 7 tools (started in 120ms);
// logged in (expires in 54m)", "error: … (retry in 4s)", "invalid config:
// …", "disabled".
func DescribeState(st supervisor.Status) string {
	s := StateText(st)
	if a := LoginText(st.Auth, time.Now()); a != "" && st.State != supervisor.StateNeedsLogin && st.State != supervisor.StateInvalid {
		s += "; " + a
	}
	return s
}

// StateText renders a status's state alone. A multi-line error (several
// config problems) is joined with "; ", so that every status stays on one
// line of a table or log.
func StateText(st supervisor.Status) string {
	s := stateText(st)
	if st.ConfigError != "" && st.State != supervisor.StateError && st.State != supervisor.StateInvalid {
		s += "; " + strings.ReplaceAll(st.ConfigError, "\n", "; ") // the error states show it in their last error
	}
	return s
}

func stateText(st supervisor.Status) string {
	st.LastError = strings.ReplaceAll(st.LastError, "\n", "; ")
	switch st.State {
	case supervisor.StateNeedsLogin:
		reason := "not logged in"
		if st.Auth != nil && st.Auth.Reason != "" {
			reason = st.Auth.Reason
		}
		return fmt.Sprintf("needs login (%s): run `plughost mcp login %s`", reason, st.Name)
	case supervisor.StateConnected:
		s := fmt.Sprintf("connected, %s (started in %s)", count(st.Tools, "tool"), st.StartupDuration.Round(time.Millisecond))
		for _, w := range st.Warnings {
			s += "; warning: " + w
		}
		if st.Throttle != "" {
			s += "; " + st.Throttle
		}
		return s
	case supervisor.StateError:
		s := "error: " + st.LastError
		if !st.NextRetry.IsZero() {
			s += fmt.Sprintf(" (retry in %s)", time.Until(st.NextRetry).Round(time.Second))
		}
		return s
	case supervisor.StateConnecting:
		if st.Installing != "" {
			return fmt.Sprintf("installing: the first start of a %s package, which may download it first (allowed %s)", st.Installing, supervisor.FirstStartBound)
		}
	case supervisor.StateInvalid:
		return "invalid config: " + st.LastError
	case supervisor.StateDisabled:
		if st.LastError != "" {
			return "disabled (" + st.LastError + ")"
		}
		return "disabled"
	}
	return string(st.State)
}

// LoginText describes a server's OAuth login in one phrase, without tokens:
// "logged in (expires in 54m, scopes read write)", "needs login: not logged
// in", …; "" for a server without OAuth.
func LoginText(a *tokens.Status, now time.Time) string {
	if a == nil {
		return ""
	}
	if a.Error != "" {
		return "login unreadable: " + a.Error
	}
	var s string
	if a.LoggedIn {
		s = "logged in"
		if d := loginDetails(a, now); d != "" {
			s += " (" + d + ")"
		}
	}
	if a.NeedsLogin {
		need := "needs login: " + a.Reason
		if len(a.WantScopes) > 0 {
			need += " (scopes " + strings.Join(a.WantScopes, " ") + ")"
		}
		if s != "" {
			return s + "; " + need
		}
		return need
	}
	return s
}

func loginDetails(a *tokens.Status, now time.Time) string {
	var parts []string
	switch left := a.ExpiresAt.Sub(now); {
	case a.ExpiresAt.IsZero():
	case left > 0:
		parts = append(parts, "expires in "+roundDuration(left))
	case a.Refreshable:
		parts = append(parts, "expired, refreshed on next use")
	default:
		parts = append(parts, "expired")
	}
	if len(a.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(a.Scopes, " "))
	}
	return strings.Join(parts, ", ")
}

// roundDuration renders d to a readable precision: 45s, 54m, 3h20m, 2d.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", h, m)
		}
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// count writes n with its noun, singular for 1: "1 tool", "7 tools".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ServerDetail is everything about one server a front end shows: its view,
// its config entry (secrets masked whenever printed or marshalled), its
// tools under their agent-facing names and the tail of its stderr.
type ServerDetail struct {
	// ServerListing is the server's row, under "server" in JSON (its "tools"
	// is a count, the detail's a list).
	ServerListing `json:"server"`
	// Config is the server's entry (env, header and unknown-key values
	// masked in every print and JSON encoding).
	Config config.Server `json:"config"`
	// Tools are the server's tools, sorted by agent-facing name.
	Tools []registry.Tool `json:"tools"`
	// Stderr is the tail of the server's stderr (stdio servers).
	Stderr string `json:"stderr,omitempty"`
	// Quarantined are the tools waiting for approval, with what changed.
	Quarantined []QuarantinedTool `json:"quarantined"`
	// Findings are the definition scan's findings, by the server's tool
	// name (quarantined tools' too).
	Findings map[string][]toolscan.Finding `json:"findings"`
}

// ServerDetail returns one server's detail; an unknown name is a
// *NoServerError. The plugin is asked for the stderr tail for at most
// diagnosticsTimeout: a stuck plugin gives the tail captured before (e.g.
// at the server's last crash), as in ServerRows.
func (h *Host) ServerDetail(ctx context.Context, name string) (ServerDetail, error) {
	st := h.st()
	srv, ok := st.cfg.MCP.Servers[name]
	if !ok {
		return ServerDetail{}, &NoServerError{Name: name, Configured: append([]string(nil), st.order...)}
	}
	d := ServerDetail{ServerListing: h.listing(st, name, h.started()), Config: srv, Tools: h.ServerTools(name),
		Quarantined: h.Quarantined(name), Findings: h.Findings(name)}
	if d.Tools == nil {
		d.Tools = []registry.Tool{}
	}
	dctx, cancel := context.WithTimeout(ctx, diagnosticsTimeout) // a stuck plugin must not stall the detail
	defer cancel()
	if diag, ok := h.diagnose(dctx, name); ok {
		d.Stderr = diag.Stderr
	}
	return d, nil
}

// Readiness says which servers are up.
type Readiness struct {
	// Ready is true when every enabled server with a valid config is
	// connected (and, from CheckReadiness, the session store answers).
	Ready bool `json:"ready"`
	// Store is the session store kept outside the process (Redis), as
	// CheckReadiness found it; absent otherwise.
	Store *StoreReadiness `json:"store,omitempty"`
	// Servers lists every configured server.
	Servers []ServerReadiness `json:"servers"`
}

// ServerReadiness is one server in Readiness.
type ServerReadiness struct {
	// Name is the server's name in the config.
	Name string `json:"name"`
	// State is its lifecycle state (connected, connecting, error, …).
	State supervisor.State `json:"state"`
	// Up is true when it is connected.
	Up bool `json:"up"`
	// Tools is how many tools it lists.
	Tools int `json:"tools"`
	// Restarts counts its restarts after crashes or failed attempts.
	Restarts int `json:"restarts"`
	// LastError is its most recent failure (secrets are never part of it).
	LastError string `json:"last_error,omitempty"`
}

// Readiness reports which servers are up: ready when every enabled server
// with a valid config is connected (disabled and invalid ones do not count).
func (h *Host) Readiness() Readiness {
	r := Readiness{Ready: true, Servers: []ServerReadiness{}}
	for _, st := range h.Statuses() {
		up := st.State == supervisor.StateConnected
		if !up && st.State != supervisor.StateDisabled && st.State != supervisor.StateInvalid {
			r.Ready = false
		}
		r.Servers = append(r.Servers, ServerReadiness{
			Name: st.Name, State: st.State, Up: up, Tools: st.Tools, Restarts: st.Restarts, LastError: st.LastError,
		})
	}
	return r
}

// Login states of a ServerRow's Auth.
const (
	AuthNone       = "none"        // the server has no oauth
	AuthOK         = "ok"          // logged in
	AuthNeedsLogin = "needs_login" // a login is needed before it can connect
)

// diagnosticsTimeout bounds asking one plugin for the stderr tail of a row
// or a detail (the last tail captured is used when it does not answer in
// time).
const diagnosticsTimeout = time.Second

// stderrTailLines is how many lines of stderr a ServerRow carries.
const stderrTailLines = 20

// ServerRow is a ServerListing with what a dashboard shows beside it: the
// server's calls over the last minutes, its login state in one word and
// the tail of its stderr (masked).
type ServerRow struct {
	ServerListing
	callstats.Summary
	// Auth is AuthNone, AuthOK or AuthNeedsLogin. (In JSON it takes the
	// place of the view's login detail, which is under auth_status.)
	Auth string `json:"auth"`
	// AuthStatus is the OAuth login detail (nil without oauth).
	AuthStatus *tokens.Status `json:"auth_status,omitempty"`
	// StderrTail is the last lines of the server's stderr, masked.
	StderrTail string `json:"stderr_tail,omitempty"`
}

// Listing returns the row's ServerListing as ServerListings has it (the login
// detail back in place, after a round trip through JSON).
func (r ServerRow) Listing() ServerListing {
	v := r.ServerListing
	v.Status.Auth = r.AuthStatus
	return v
}

// ServerRows returns every configured server's row, sorted by name. The
// plugins are asked for their stderr tails all at once, each bounded on its
// own (diagnosticsTimeout), so stuck plugins cost a listing one bound, not
// one each.
func (h *Host) ServerRows(ctx context.Context) []ServerRow {
	return h.rows(ctx, h.ServerListings())
}

// ServerPage is one page of the server rows, sorted by name.
type ServerPage struct {
	// Rows are the page's servers.
	Rows []ServerRow
	// Next is the after of the next page; "" on the last page.
	Next string
	// Totals count every configured server, not only the page's.
	Totals ServerTotals
}

// ServerTotals counts the configured servers.
type ServerTotals struct {
	// Servers is how many servers are configured.
	Servers int `json:"servers"`
	// Connected is how many of them are connected.
	Connected int `json:"connected"`
	// Tools is how many tools the connected servers list.
	Tools int `json:"tools"`
}

// ServerRowsPage returns the rows of at most limit servers (limit ≤ 0:
// all) whose names sort after after ("": from the first), and the totals
// of all: a front end pages through thousands of servers without building
// (or asking each plugin for) the rows of all of them.
func (h *Host) ServerRowsPage(ctx context.Context, after string, limit int) ServerPage {
	st, started := h.st(), h.started()
	page := ServerPage{Totals: st.totals()}
	names := st.order[sortedAfter(st.order, after):]
	if limit > 0 && len(names) > limit {
		names = names[:limit]
		page.Next = names[len(names)-1]
	}
	views := make([]ServerListing, len(names))
	for i, name := range names {
		views[i] = h.listing(st, name, started)
	}
	page.Rows = h.rows(ctx, views)
	return page
}

// sortedAfter returns the index of the first name in sorted that sorts
// after after.
func sortedAfter(sorted []string, after string) int {
	i, found := slices.BinarySearch(sorted, after)
	if found {
		i++
	}
	return i
}

// totals counts st's servers.
func (st *setup) totals() ServerTotals {
	t := ServerTotals{Servers: len(st.order)}
	for _, s := range st.servers {
		if status := s.sup.Status(); status.State == supervisor.StateConnected {
			t.Connected++
			t.Tools += status.Tools
		}
	}
	return t
}

// rows completes views into rows, asking every plugin at once.
func (h *Host) rows(ctx context.Context, views []ServerListing) []ServerRow {
	out := make([]ServerRow, len(views))
	var wg sync.WaitGroup
	for i, v := range views {
		wg.Go(func() { out[i] = h.row(ctx, v) }) // one goroutine per row: bounded by the page
	}
	wg.Wait()
	return out
}

// row completes a view into its row.
func (h *Host) row(ctx context.Context, v ServerListing) ServerRow {
	r := ServerRow{ServerListing: v, Summary: h.calls.Summary(v.Name), Auth: AuthNone, AuthStatus: v.Status.Auth}
	switch a := v.Status.Auth; {
	case a == nil:
	case a.NeedsLogin || v.State == supervisor.StateNeedsLogin:
		r.Auth = AuthNeedsLogin
	default:
		r.Auth = AuthOK
	}
	dctx, cancel := context.WithTimeout(ctx, diagnosticsTimeout) // a stuck plugin must not stall a listing
	defer cancel()
	if d, ok := h.diagnose(dctx, v.Name); ok {
		r.StderrTail = tail(d.Stderr, stderrTailLines)
	}
	return r
}

// CallStats returns a server's calls over the last minutes, with the
// per-minute series.
func (h *Host) CallStats(name string) callstats.Stats { return h.calls.Stats(name) }

// CallCount returns how many tool calls the host made since it was
// created: it changes whenever any server's call statistics do.
func (h *Host) CallCount() uint64 { return h.calls.Total() }

// tail returns the last n lines of text.
func tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
