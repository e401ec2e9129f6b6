// Package quarantine decides which of a server's tools a client may use
// under tool trust (issue 25, docs/security.md): it compares every listed
// definition with its pin (host/trust), scans it (host/toolscan), and keeps
// the registry's quarantine in step, so a changed, new, unapproved or
// flagged tool is in no list, search or call until someone approves it.
package quarantine

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/toolscan"
	"github.com/plughost/plughost/host/trust"
)

// Why a tool is quarantined (Held.Reasons).
const (
	// ReasonChanged: the definition differs from the one approved.
	ReasonChanged = "changed"
	// ReasonNew: a tool the server did not list when it was pinned.
	ReasonNew = "new"
	// ReasonServerNotApproved: the server's trust is "approve" and nobody
	// approved it yet.
	ReasonServerNotApproved = "server_not_approved"
	// ReasonFlagged: the scan flagged the definition and the server's
	// trust_scan is "quarantine".
	ReasonFlagged = "flagged"
	// ReasonPinsUnavailable: the pins could not be read, so nothing of the
	// server can be checked; it is held until they can.
	ReasonPinsUnavailable = "pins_unavailable"
)

// ReasonText explains a reason code in a few words, for people.
func ReasonText(reason string) string {
	switch reason {
	case ReasonChanged:
		return "its definition changed since it was approved"
	case ReasonNew:
		return "it is new since the server was approved"
	case ReasonServerNotApproved:
		return "its server (trust \"approve\") has not been approved yet"
	case ReasonFlagged:
		return "the definition scan flagged it"
	case ReasonPinsUnavailable:
		return "the approved definitions could not be read"
	}
	return reason
}

// Held is one quarantined tool and why.
type Held struct {
	// Tool is the server's own name of the tool.
	Tool string `json:"tool"`
	// Reasons are the Reason* codes, most important first.
	Reasons []string `json:"reasons"`
	// Pinned is the approved definition, nil for a tool never approved.
	Pinned *trust.Pin `json:"pinned,omitempty"`
	// Current is the definition the server lists now (trust.Canonical:
	// the fields trust covers, keys sorted).
	Current json.RawMessage `json:"current"`
	// Digest identifies Current (trust.Digest).
	Digest string `json:"digest"`
	// Findings are the scan's findings on Current.
	Findings []toolscan.Finding `json:"findings,omitempty"`
}

// Modes returns a server's effective trust and trust_scan
// (config.Server.TrustMode, ScanMode).
type Modes func(server string) (trustMode, scanMode string)

// Options configure a Keeper.
type Options struct {
	// Store keeps the pins.
	Store trust.Store
	// Registry is where the verdicts take effect.
	Registry *registry.Registry
	// Modes gives each server's trust and trust_scan.
	Modes Modes
	// Logger receives what went wrong with the store; nil discards.
	Logger hclog.Logger
	// Now is the clock of pins; nil means time.Now.
	Now func() time.Time
}

// Keeper holds every server's verdict and publishes its tools to the
// registry. Safe for concurrent use: judging, approving and re-reading
// pins are serialized, so the registry never shows a tool a verdict holds.
type Keeper struct {
	o    Options
	seed maphash.Seed // of the parse cache's keys

	mu      sync.Mutex
	servers map[string]*serverState
}

// serverState is what the keeper knows of one server.
type serverState struct {
	defs     []json.RawMessage     // as listed, last published
	tools    []listedTool          // defs parsed
	parsed   map[uint64]listedTool // tools of the last list, by maphash of the raw definition
	rec      trust.Record
	known    bool  // rec was loaded and the server is pinned
	loaded   bool  // rec reflects the store (else it must be loaded)
	read     bool  // rec was read from the store at least once
	loadErr  error // the last load failed and nothing was ever read
	failed   bool  // the last load failed: Watch retries it
	held     map[string]Held
	flagged  int
	findings map[string][]toolscan.Finding
}

// listedTool is one listed definition, digested and scanned once.
type listedTool struct {
	name      string
	canonical json.RawMessage
	digest    string
	findings  []toolscan.Finding
}

// New returns a keeper with no servers.
func New(o Options) *Keeper {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Keeper{o: o, seed: maphash.MakeSeed(), servers: map[string]*serverState{}}
}

// Publish gives the registry server's listed definitions (nil removes the
// server) after judging them: a tool that differs from its pin, is new,
// is flagged (trust_scan "quarantine") or belongs to an unapproved server
// (trust "approve") is quarantined first, so no snapshot ever lists it. A
// server seen for the first time with trust "pin" has its definitions
// pinned (by "first list").
func (k *Keeper) Publish(ctx context.Context, server string, defs []json.RawMessage) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(defs) == 0 {
		delete(k.servers, server)
		k.o.Registry.SetServer(server, nil)
		k.o.Registry.SetQuarantine(server, nil)
		return
	}
	s := k.servers[server]
	if s == nil {
		s = &serverState{}
		k.servers[server] = s
	}
	if !sameSlice(s.defs, defs) {
		s.defs = defs
		s.tools, s.parsed = parse(defs, s.parsed, k.seed)
	}
	k.judge(ctx, server, s)
	k.o.Registry.SetQuarantine(server, slices.Sorted(maps.Keys(s.held)))
	k.o.Registry.SetServer(server, defs)
}

// Rejudge judges the named servers again (every server for none, or for
// trust.AllServers): after their pins changed elsewhere (reload = true
// re-reads them) or their trust settings changed. It reports whether any
// quarantine changed.
func (k *Keeper) Rejudge(ctx context.Context, reload bool, servers ...string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(servers) == 0 || slices.Contains(servers, trust.AllServers) {
		servers = slices.Collect(maps.Keys(k.servers))
	}
	changed := false
	for _, name := range servers {
		s, ok := k.servers[name]
		if !ok {
			continue
		}
		if reload {
			s.loaded = false
		}
		k.judge(ctx, name, s)
		changed = k.o.Registry.SetQuarantine(name, slices.Sorted(maps.Keys(s.held))) || changed
	}
	return changed
}

// Watch re-judges the servers whose pins another process or replica
// changed, until ctx ends; onChange runs after a change of any quarantine.
// Pins that could not be read are read again, with growing waits, until
// they can.
func (k *Keeper) Watch(ctx context.Context, onChange func()) {
	changes := k.o.Store.Changes(ctx)
	attempt := 0
	retry := time.NewTimer(retryDelays[0])
	defer retry.Stop()
	for {
		var servers []string
		select {
		case server, ok := <-changes:
			if !ok {
				return
			}
			servers = []string{server}
		case <-retry.C:
			if servers = k.failing(); len(servers) == 0 {
				attempt = 0
				retry.Reset(retryDelays[len(retryDelays)-1])
				continue
			}
		}
		if k.Rejudge(ctx, true, servers...) && onChange != nil {
			onChange()
		}
		if len(k.failing()) == 0 {
			attempt = 0
		} else if attempt < len(retryDelays)-1 {
			attempt++
		}
		retry.Reset(retryDelays[attempt])
	}
}

// NotWaitingError is an approval of a tool that is not quarantined.
type NotWaitingError struct {
	// Server and Tool name what was to be approved.
	Server, Tool string
	// Waiting are the server's quarantined tools.
	Waiting []string
}

// Error implements error.
func (e *NotWaitingError) Error() string {
	if len(e.Waiting) == 0 {
		if e.Tool == "" {
			return fmt.Sprintf("server %q has no tools waiting for approval", e.Server)
		}
		return fmt.Sprintf("tool %q of server %q is not waiting for approval: the server has no tools waiting", e.Tool, e.Server)
	}
	return fmt.Sprintf("tool %q of server %q is not waiting for approval; waiting: %s", e.Tool, e.Server, strings.Join(e.Waiting, ", "))
}

// Approve pins the current definitions of server's quarantined tools
// named in tools (every quarantined tool when tools is empty), recording
// by as who approved, and lifts their quarantine. It returns the tools
// approved, sorted. A name that is not quarantined is a
// *NotWaitingError; nothing is approved then.
func (k *Keeper) Approve(ctx context.Context, server string, tools []string, by string) ([]string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.servers[server]
	var waiting []string
	if s != nil {
		waiting = slices.Sorted(maps.Keys(s.held))
	}
	if len(tools) == 0 {
		if len(waiting) == 0 {
			return nil, &NotWaitingError{Server: server}
		}
		tools = waiting
	}
	pins := make(map[string]trust.Pin, len(tools))
	now := k.o.Now().UTC()
	for _, t := range tools {
		h, ok := s.heldTool(t)
		if !ok {
			return nil, &NotWaitingError{Server: server, Tool: t, Waiting: waiting}
		}
		pins[t] = trust.Pin{Digest: h.Digest, Definition: h.Current, At: now, By: by}
	}
	if err := k.o.Store.Pin(ctx, server, pins); err != nil {
		return nil, fmt.Errorf("approve tools of server %q: %w", server, err)
	}
	s.rec = s.rec.Merge(pins) // in force should the read-back fail
	s.known, s.read, s.loadErr = true, true, nil
	s.loaded = false // read back what every writer made of it
	k.judge(ctx, server, s)
	k.o.Registry.SetQuarantine(server, slices.Sorted(maps.Keys(s.held)))
	return slices.Sorted(maps.Keys(pins)), nil
}

// heldTool returns the quarantined tool of s named name.
func (s *serverState) heldTool(name string) (Held, bool) {
	if s == nil {
		return Held{}, false
	}
	h, ok := s.held[name]
	return h, ok
}

// Held returns server's quarantined tools, sorted by name.
func (k *Keeper) Held(server string) []Held {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.servers[server]
	if s == nil {
		return nil
	}
	out := make([]Held, 0, len(s.held))
	for _, name := range slices.Sorted(maps.Keys(s.held)) {
		out = append(out, s.held[name])
	}
	return out
}

// Findings returns the scan's findings on server's listed tools, by the
// server's tool name; tools without findings are left out.
func (k *Keeper) Findings(server string) map[string][]toolscan.Finding {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.servers[server]
	if s == nil {
		return nil
	}
	return maps.Clone(s.findings)
}

// Counts returns how many of server's tools are quarantined and how many
// the scan flagged.
func (k *Keeper) Counts(server string) (held, flagged int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s := k.servers[server]; s != nil {
		return len(s.held), s.flagged
	}
	return 0, 0
}

// judge computes s's verdict. Callers hold k.mu.
func (k *Keeper) judge(ctx context.Context, server string, s *serverState) {
	trustMode, scanMode := k.o.Modes(server)
	quarantineFlagged := scanMode == config.ScanQuarantine && trustMode != config.TrustOff
	s.held, s.findings, s.flagged = map[string]Held{}, map[string][]toolscan.Finding{}, 0
	for _, t := range s.tools {
		if len(t.findings) > 0 {
			s.findings[t.name] = t.findings
			s.flagged++
		}
	}
	if trustMode == config.TrustOff {
		return
	}
	if !s.loaded {
		k.load(ctx, server, s)
	}
	if s.loadErr != nil {
		for _, t := range s.tools {
			s.held[t.name] = heldOf(t, nil, ReasonPinsUnavailable)
		}
		return
	}
	if !s.known && trustMode == config.TrustPin {
		k.pinFirstList(ctx, server, s, quarantineFlagged)
	}
	for _, t := range s.tools {
		var reasons []string
		pin, pinned := s.rec.Tools[t.name]
		switch {
		case !s.known:
			reasons = append(reasons, ReasonServerNotApproved)
		case !pinned:
			reasons = append(reasons, ReasonNew)
		case pin.Digest != t.digest:
			reasons = append(reasons, ReasonChanged)
		}
		approved := pinned && pin.Digest == t.digest
		if quarantineFlagged && len(t.findings) > 0 && !approved {
			reasons = append(reasons, ReasonFlagged)
		}
		if len(reasons) == 0 {
			continue
		}
		var p *trust.Pin
		if pinned {
			p = &pin
		}
		s.held[t.name] = heldOf(t, p, reasons...)
	}
}

// load reads server's record. When the read fails after an earlier one
// succeeded, the record last read stays in force: pins only grow (an
// approval adds, nothing removes), so it approves nothing the store does
// not. A server whose pins were never read holds every tool. Either way
// Watch retries the read. Callers hold k.mu.
func (k *Keeper) load(ctx context.Context, server string, s *serverState) {
	rec, known, err := k.o.Store.Load(ctx, server)
	s.failed = err != nil
	switch {
	case err == nil:
		s.rec, s.known, s.loaded, s.read, s.loadErr = rec, known, true, true, nil
	case s.read:
		k.o.Logger.Warn("re-reading the pins of a server failed; judging its tools by the pins last read until it succeeds", "server", server, "error", err)
	default:
		s.loadErr = err
		k.o.Logger.Warn("reading the pins of a server failed; its tools are quarantined until they can be read", "server", server, "error", err)
	}
}

// retryDelays are the waits between Watch's attempts to read pins that
// could not be read; the last repeats.
var retryDelays = []time.Duration{250 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}

// failing returns the servers whose last pins read failed.
func (k *Keeper) failing() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for name, s := range k.servers {
		if s.failed {
			out = append(out, name)
		}
	}
	return out
}

// pinFirstList pins what a server lists the first time it is seen with
// trust "pin": trust on first use. A tool the scan flagged is left out
// when flagged tools are quarantined, so it waits for an approval. A
// store that cannot write is logged, and the pins are kept in memory until
// the next load.
func (k *Keeper) pinFirstList(ctx context.Context, server string, s *serverState, skipFlagged bool) {
	pins := map[string]trust.Pin{}
	now := k.o.Now().UTC()
	for _, t := range s.tools {
		if skipFlagged && len(t.findings) > 0 {
			continue
		}
		pins[t.name] = trust.Pin{Digest: t.digest, Definition: t.canonical, At: now, By: "first list"}
	}
	if err := k.o.Store.Pin(ctx, server, pins); err != nil {
		k.o.Logger.Warn("pinning a new server's tools failed; they are pinned in memory only", "server", server, "error", err)
		s.rec, s.known, s.read = trust.Record{Tools: pins}, true, true
		return
	}
	s.rec, s.known, s.loadErr = k.o.Store.Load(ctx, server)
	if s.loadErr != nil || !s.known {
		s.rec, s.known, s.loadErr = trust.Record{Tools: pins}, true, nil
	}
	s.read = true
}

func heldOf(t listedTool, pin *trust.Pin, reasons ...string) Held {
	return Held{Tool: t.name, Reasons: reasons, Pinned: pin, Current: t.canonical, Digest: t.digest, Findings: t.findings}
}

// parse digests and scans every definition that has a name; the registry
// skips the others too. A tool listed twice is kept once, as the registry
// does. A definition byte for byte as in the last list (prev, keyed by
// maphash with seed) is not digested or scanned again: after a
// list_changed most tools are. It returns the tools sorted by name and
// the cache of this list.
func parse(defs []json.RawMessage, prev map[uint64]listedTool, seed maphash.Seed) ([]listedTool, map[uint64]listedTool) {
	out := make([]listedTool, 0, len(defs))
	next := make(map[uint64]listedTool, len(defs))
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		key := maphash.Bytes(seed, d)
		t, ok := prev[key]
		if !ok {
			if t, ok = parseOne(d); !ok {
				continue
			}
		}
		next[key] = t
		if seen[t.name] {
			continue
		}
		seen[t.name] = true
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, next
}

// parseOne digests and scans one definition; false when it has no name.
func parseOne(d json.RawMessage) (listedTool, bool) {
	canonical, digest, err := trust.CanonicalDigest(d)
	if err != nil {
		return listedTool{}, false
	}
	var head struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(canonical, &head) != nil || head.Name == "" {
		return listedTool{}, false
	}
	return listedTool{name: head.Name, canonical: canonical, digest: digest, findings: toolscan.Scan(d)}, true
}

func sameSlice(a, b []json.RawMessage) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}
