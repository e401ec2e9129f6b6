package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// ValidateOptions adjusts validation to the host.
type ValidateOptions struct {
	// ExtraTypes are third-party transport types the host found on disk
	// (mcp-transport-<type> executables). A server of such a type is checked
	// only for the keys the host owns; its plugin validates the rest.
	ExtraTypes []string
}

// Validate checks a typed configuration: value ranges, the discovery rule,
// and each server's transport settings. It is the one validator behind the
// runtime, the CLI, the API and the dashboard. For a configuration from Load
// call Loaded.Validate, which also reports what only the raw layers show
// (unknown keys, wrong JSON types, a missing "enabled").
func Validate(cfg *Config, opts ValidateOptions) Problems {
	return validate(cfg, opts, true)
}

func validate(cfg *Config, opts ValidateOptions, reportExtra bool) Problems {
	var p Problems
	if cfg == nil {
		p.fatal("", "no configuration was given; load one with config.Load")
		return p
	}
	checkGlobal(&p, cfg.MCP)
	checkChat(&p, cfg.Chat)
	for _, name := range slices.Sorted(maps.Keys(cfg.MCP.Servers)) {
		sv := serverValidator{p: &p, name: name, s: cfg.MCP.Servers[name], opts: opts}
		sv.check(reportExtra)
	}
	return p
}

func checkGlobal(p *Problems, m MCP) {
	checkDiscovery(p, m.Discovery)
	checkSemantic(p, m.Discovery.Semantic)
	if m.MaxInlineTextChars < 256 {
		p.fatal("tools.mcp.max_inline_text_chars", fmt.Sprintf("must be at least 256, got %d; set a larger budget (default 16384)", m.MaxInlineTextChars))
	}
	if msg := messageMBProblem(m.MaxMessageMB); msg != "" {
		p.fatal("tools.mcp.max_message_mb", msg+" (default 64)")
	}
	if msg := resultMBProblem(m.MaxResultMB); msg != "" {
		p.fatal("tools.mcp.max_result_mb", msg+" (default 256)")
	}
	if strings.TrimSpace(m.Workspace) == "" {
		p.fatal("tools.mcp.workspace", `must not be empty; set it to a directory for result artifacts (default "~/.plughost/workspace")`)
	}
	checkArtifacts(p, m.Artifacts)
	checkAudit(p, m.Audit)
	checkTrust(p, m.Trust)
	checkTimeouts(p, m.Timeouts)
	checkRestart(p, m.Restart)
	checkPlugins(p, m.Plugins)
	checkGateway(p, m.Gateway)
}

// MaxSearchResultsLimit is the largest tools.mcp.discovery.max_search_results.
const MaxSearchResultsLimit = 50

// CheckDiscovery checks a tools.mcp.discovery section built in Go (the
// discovery package's settings): the same rules as Validate, except that
// with discovery off the other fields are not checked, since a Go caller
// leaves what is unused at its zero value. The errors are *ValidationError
// values (use errors.As).
func CheckDiscovery(d Discovery) error {
	var p Problems
	if d.Enabled {
		checkDiscovery(&p, d)
	}
	return p.Err()
}

// checkDiscovery checks the ranges whether discovery is on or off: in a
// config every value is written (the defaults layer has them all), so one
// out of range is a mistake either way, and one written while discovery is
// off would otherwise surface only when someone turns it on. The engine
// rule applies only while discovery is on.
func checkDiscovery(p *Problems, d Discovery) {
	if d.Enabled && !d.UseBM25 && !d.UseRegex {
		p.fatal("tools.mcp.discovery.use_bm25", "discovery is enabled but both search tools are off, so hidden tools could never be found; "+
			"set tools.mcp.discovery.use_bm25 or tools.mcp.discovery.use_regex to true, or set tools.mcp.discovery.enabled to false")
	}
	if d.TTL < 1 {
		p.fatal("tools.mcp.discovery.ttl", fmt.Sprintf("must be at least 1, got %d; set the number of turns a found tool stays unlocked (default 5)", d.TTL))
	}
	if d.MaxSearchResults < 1 || d.MaxSearchResults > MaxSearchResultsLimit {
		p.fatal("tools.mcp.discovery.max_search_results", fmt.Sprintf("must be between 1 and %d, got %d; set a value in that range (default 5)", MaxSearchResultsLimit, d.MaxSearchResults))
	}
}

// MaxMessageMBLimit is the largest max_message_mb accepted (1 GiB: the
// transport protocol's ceiling).
const MaxMessageMBLimit = 1024

// resultMBProblem says what is wrong with a max_result_mb value, or "".
func resultMBProblem(mb int) string {
	if mb < 1 || mb > MaxMessageMBLimit {
		return fmt.Sprintf("must be between 1 and %d (MiB), got %d; set the largest tools/call result a server may send", MaxMessageMBLimit, mb)
	}
	return ""
}

// messageMBProblem says what is wrong with a max_message_mb value, or "".
func messageMBProblem(mb int) string {
	if mb < 1 || mb > MaxMessageMBLimit {
		return fmt.Sprintf("must be between 1 and %d (MiB), got %d; set the largest message a server may send", MaxMessageMBLimit, mb)
	}
	return ""
}

func checkSemantic(p *Problems, s Semantic) {
	if s.WordVectors != "" && strings.TrimSpace(s.WordVectors) == "" {
		p.fatal("tools.mcp.discovery.semantic.word_vectors", `must not be blank; set "off", "auto" or the path of a word-vector file`)
	}
	e := s.Endpoint
	if e.URL == "" {
		return
	}
	if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.fatal("tools.mcp.discovery.semantic.endpoint.url", "must be an http(s) URL such as http://127.0.0.1:11434/v1, or empty to use no endpoint")
	}
	if strings.TrimSpace(e.Model) == "" {
		p.fatal("tools.mcp.discovery.semantic.endpoint.model", "must name the embedding model when endpoint.url is set (e.g. nomic-embed-text)")
	}
	if e.TimeoutSeconds < 0 {
		p.fatal("tools.mcp.discovery.semantic.endpoint.timeout_seconds", fmt.Sprintf("must not be negative, got %v; set how long one embedding call may take (0 = the default, 2)", e.TimeoutSeconds))
	}
}

func checkArtifacts(p *Problems, a Artifacts) {
	if !(a.MaxAgeHours > 0) {
		p.fatal("tools.mcp.artifacts.max_age_hours", fmt.Sprintf("must be greater than 0, got %v; set how many hours saved results are kept (default 168)", a.MaxAgeHours))
	}
	if !(a.MaxTotalMB > 0) {
		p.fatal("tools.mcp.artifacts.max_total_mb", fmt.Sprintf("must be greater than 0, got %v; set how many MiB of saved results are kept (default 1024)", a.MaxTotalMB))
	}
	if !(a.SearchTimeoutSeconds > 0) {
		p.fatal("tools.mcp.artifacts.search_timeout_seconds", fmt.Sprintf("must be greater than 0, got %v; set how many seconds one search_files call may run (default 10)", a.SearchTimeoutSeconds))
	}
	if !(a.SearchMaxMB > 0) {
		p.fatal("tools.mcp.artifacts.search_max_mb", fmt.Sprintf("must be greater than 0, got %v; set how many MiB one search_files call may read (default 256)", a.SearchMaxMB))
	}
}

func checkTimeouts(p *Problems, t TimeoutSeconds) {
	for _, f := range []struct {
		key string
		v   float64
		def int
	}{
		{"start_seconds", t.Start, 15}, {"initialize_seconds", t.Initialize, 30},
		{"list_tools_seconds", t.ListTools, 30}, {"call_seconds", t.Call, 120},
	} {
		if !(f.v > 0) {
			p.fatal(pathOf("tools", "mcp", "timeouts", f.key), fmt.Sprintf("must be greater than 0, got %v; set a number of seconds (default %d)", f.v, f.def))
		}
	}
}

func checkRestart(p *Problems, r Restart) {
	if !(r.InitialBackoffSeconds > 0) {
		p.fatal("tools.mcp.restart.initial_backoff_seconds", fmt.Sprintf("must be greater than 0, got %v; set a number of seconds (default 1)", r.InitialBackoffSeconds))
	}
	switch {
	case !(r.MaxBackoffSeconds > 0):
		p.fatal("tools.mcp.restart.max_backoff_seconds", fmt.Sprintf("must be greater than 0, got %v; set a number of seconds (default 60)", r.MaxBackoffSeconds))
	case r.MaxBackoffSeconds < r.InitialBackoffSeconds:
		p.fatal("tools.mcp.restart.max_backoff_seconds", fmt.Sprintf("must be at least initial_backoff_seconds (%v), got %v; raise it or lower initial_backoff_seconds", r.InitialBackoffSeconds, r.MaxBackoffSeconds))
	}
}

func checkPlugins(p *Problems, pl Plugins) {
	for i, d := range pl.Dirs {
		if strings.TrimSpace(d) == "" {
			p.fatal(indexPath("tools.mcp.plugins.dirs", i), "is empty; remove the entry or give a directory")
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(pl.SHA256)) {
		at := pathOf("tools", "mcp", "plugins", "sha256", typ)
		if typ == "" {
			p.fatal(at, "the transport type is empty; key each digest by its type, e.g. \"stdio\"")
		}
		if d := pl.SHA256[typ]; !isHexDigest(d) {
			p.fatal(at, fmt.Sprintf("must be a sha256 digest of 64 hexadecimal characters, got %d characters; compute it with: sha256sum mcp-transport-%s", len(d), trunc(typ)))
		}
	}
}

func isHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}
