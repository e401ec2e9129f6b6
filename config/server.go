package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plughost/plughost/lib/secret"
)

// Built-in transport types. TransportStreamableHTTP is an alias that Transport
// normalises to TransportHTTP.
const (
	// TransportStdio runs the server as a child process speaking over its pipes.
	TransportStdio = "stdio"
	// TransportSSE is the legacy HTTP+SSE transport.
	TransportSSE = "sse"
	// TransportHTTP is the streamable HTTP transport.
	TransportHTTP = "http"
	// TransportStreamableHTTP is an alias of TransportHTTP.
	TransportStreamableHTTP = "streamable-http"
)

// BuiltinTransports returns the effective built-in transport types, in the
// order they are documented. It is the one list of them: validation, plugin
// lookup messages, import/export and the CLI's help all derive from it.
func BuiltinTransports() []string {
	return []string{TransportStdio, TransportSSE, TransportHTTP}
}

// IsBuiltin reports whether transport is a built-in effective type (an alias
// such as "streamable-http" is not an effective type; see Server.Transport).
func IsBuiltin(transport string) bool {
	return slices.Contains(BuiltinTransports(), transport)
}

// KnownTypesText lists the transport types a user may write in "type", for
// messages and help: the built-in ones with their alias.
func KnownTypesText() string {
	return strings.Join(BuiltinTransports(), ", ") + ", " + TransportStreamableHTTP + " (alias of " + TransportHTTP + ")"
}

// Transport returns the effective transport type: an explicit type, with
// "streamable-http" normalised to "http"; otherwise "sse" when only url is
// set and "stdio" when only command is set. It returns "" when the type is
// omitted and neither or both of url and command are set (Validate reports
// both cases).
func (s Server) Transport() string {
	switch {
	case s.Type == TransportStreamableHTTP:
		return TransportHTTP
	case s.Type != "":
		return s.Type
	case s.URL != "" && s.Command == "":
		return TransportSSE
	case s.Command != "" && s.URL == "":
		return TransportStdio
	}
	return ""
}

// Deferred reports whether the server's tools are hidden behind the search
// tools (see DeferredState, the one rule).
func (s Server) Deferred(discoveryEnabled bool) bool {
	d, _ := s.DeferredState(discoveryEnabled)
	return d
}

// DeferredState is the deferred rule: with discovery off nothing is deferred
// (the per-server setting is ignored); with it on a server is deferred unless
// it sets "deferred": false. why says which case applied, for display:
// "discovery off", "global" (no per-server setting), "opt-in" ("deferred":
// true) or "opt-out" ("deferred": false).
func (s Server) DeferredState(discoveryEnabled bool) (deferred bool, why string) {
	switch {
	case !discoveryEnabled:
		return false, "discovery off"
	case s.DeferredOverride == nil:
		return true, "global"
	case *s.DeferredOverride:
		return true, "opt-in"
	}
	return false, "opt-out"
}

// Timeouts returns the server's effective timeouts: global, with each phase
// the server overrides replaced.
func (s Server) Timeouts(global Timeouts) Timeouts {
	t := global
	o := s.TimeoutOverrides
	if o.Start != nil {
		t.Start = seconds(*o.Start)
	}
	if o.Initialize != nil {
		t.Initialize = seconds(*o.Initialize)
	}
	if o.ListTools != nil {
		t.ListTools = seconds(*o.ListTools)
	}
	if o.Call != nil {
		t.Call = seconds(*o.Call)
	}
	return t
}

// MaxMessageBytes returns the largest message accepted from this server, in
// bytes: its max_message_mb, else the global one.
func (s Server) MaxMessageBytes(globalMB int) int {
	mb := globalMB
	if s.MaxMessageMBOverride != nil {
		mb = *s.MaxMessageMBOverride
	}
	return mb << 20
}

// MaxMessageSetting names the setting behind s's message limit, for
// messages that tell the user what to raise.
func (s Server) MaxMessageSetting(name string) string {
	if s.MaxMessageMBOverride != nil {
		return ServerPath(name, "max_message_mb")
	}
	return "tools.mcp.max_message_mb (or " + ServerPath(name, "max_message_mb") + " for this server alone)"
}

// MaxResultBytes returns the largest tools/call result accepted from this
// server, in bytes: its max_result_mb, else the global one.
func (s Server) MaxResultBytes(globalMB int) int {
	mb := globalMB
	if s.MaxResultMBOverride != nil {
		mb = *s.MaxResultMBOverride
	}
	return mb << 20
}

// MaxResultSetting names the setting behind s's result limit.
func (s Server) MaxResultSetting(name string) string {
	if s.MaxResultMBOverride != nil {
		return ServerPath(name, "max_result_mb")
	}
	return "tools.mcp.max_result_mb (or " + ServerPath(name, "max_result_mb") + " for this server alone)"
}

// stdioConfig is what a stdio transport plugin receives.
type stdioConfig struct {
	Command    string            `json:"command,omitempty"`
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	EnvFile    string            `json:"env_file,omitempty"`
	InheritEnv bool              `json:"inherit_env,omitempty"`
}

// remoteConfig is what an sse or http transport plugin receives. The oauth
// block is not part of it: the host runs OAuth and hands the transport the
// Authorization value (pluginapi.OpenRequest.Credentials).
type remoteConfig struct {
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// TransportConfig returns the JSON object the server's transport plugin
// receives: for stdio command, args, env, env_file and inherit_env; for sse
// and http url and headers; for any other type every key except those the
// host owns (enabled, deferred, type, timeouts, oauth), including Extra. Secrets
// are revealed, empty fields omitted, and a relative env_file is made
// absolute against configDir (the directory of the user's config file).
func (s Server) TransportConfig(configDir string) (json.RawMessage, error) {
	envFile, err := absEnvFile(s.EnvFile, configDir)
	if err != nil {
		return nil, err
	}
	stdio := stdioConfig{
		Command: s.Command, Args: s.Args, Env: reveal(s.Env),
		EnvFile: envFile, InheritEnv: s.InheritEnv,
	}
	remote := remoteConfig{URL: s.URL.Reveal(), Headers: reveal(s.Headers)}
	switch s.Transport() {
	case TransportStdio:
		return json.Marshal(stdio)
	case TransportSSE, TransportHTTP:
		return json.Marshal(remote)
	}
	return thirdPartyConfig(stdio, remote, s.Extra)
}

// thirdPartyConfig merges every transport field and the unknown keys into one
// object; the typed fields win over an Extra key of the same name.
func thirdPartyConfig(stdio stdioConfig, remote remoteConfig, extra map[string]secret.String) (json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for k, v := range extra {
		if !json.Valid([]byte(v.Reveal())) {
			return nil, fmt.Errorf("key %q does not hold valid JSON", k)
		}
		out[k] = json.RawMessage(v.Reveal())
	}
	for _, part := range []any{stdio, remote} {
		b, err := json.Marshal(part)
		if err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		maps.Copy(out, m)
	}
	return json.Marshal(out)
}

func reveal(m map[string]secret.String) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v.Reveal()
	}
	return out
}

func absEnvFile(p, configDir string) (string, error) {
	switch {
	case p == "":
		return "", nil
	case p == "~" || strings.HasPrefix(p, "~/"):
		return "", fmt.Errorf("env_file %q: ~ is not expanded here; load the config with Load, which expands it", p)
	case filepath.IsAbs(p):
		return filepath.Clean(p), nil
	}
	abs, err := filepath.Abs(filepath.Join(configDir, p))
	if err != nil {
		return "", fmt.Errorf("env_file %q: %w", p, err)
	}
	return abs, nil
}

// packageRunners are the commands that fetch a package before they run it.
var packageRunners = map[string]bool{"npx": true, "pnpx": true, "bunx": true, "uvx": true}

// PackageRunner returns the package runner a stdio server's command is
// ("npx", "uvx", "bunx", "pnpx", or "pnpm dlx" / "yarn dlx"), whose first
// start may download the package for minutes; "" for any other command.
func (s Server) PackageRunner() string {
	if s.Transport() != TransportStdio || s.Command == "" {
		return ""
	}
	base := strings.ToLower(s.Command[strings.LastIndexAny(s.Command, `/\`)+1:]) // a Windows path too
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".cmd"), ".exe")
	switch {
	case packageRunners[base]:
		return base
	case (base == "pnpm" || base == "yarn") && len(s.Args) > 0 && s.Args[0] == "dlx":
		return base + " dlx"
	}
	return ""
}
