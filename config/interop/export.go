package interop

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/lib/secret"
)

// exported is a server entry of another client, fields in their usual order.
type exported struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	EnvFile string            `json:"envFile,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Export writes servers in another client's format. With reveal false every
// env and header value is replaced by secret.Masked, and so are the password
// and secret query parameters of URLs (secret.MaskURL). Disabled servers and
// servers of third-party transports are skipped, and fields the format cannot
// hold are left out; the notes say which.
func Export(servers map[string]config.Server, format string, reveal bool) ([]byte, []string, error) {
	if err := checkFormat(format); err != nil {
		return nil, nil, err
	}
	out := map[string]exported{}
	var notes []string
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		e, n, ok := exportOne(name, servers[name], format, reveal)
		notes = append(notes, n...)
		if ok {
			out[name] = e
		}
	}
	top := "mcpServers"
	if format == VSCode {
		top = "servers"
	}
	b, err := json.MarshalIndent(map[string]any{top: out}, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode %s config: %w", format, err)
	}
	return append(b, '\n'), notes, nil
}

func exportOne(name string, s config.Server, format string, reveal bool) (exported, []string, bool) {
	t := s.Transport()
	switch {
	case !s.Enabled:
		return exported{}, []string{fmt.Sprintf("server %q is disabled and was not exported", name)}, false
	case !config.IsBuiltin(t):
		return exported{}, []string{fmt.Sprintf("server %q uses the %q transport, which %s cannot run; not exported", name, t, format)}, false
	}
	var notes []string
	drop := func(field string) {
		notes = append(notes, fmt.Sprintf("server %q: %q has no %s equivalent and was left out", name, field, format))
	}
	e := exported{Command: s.Command, Args: s.Args, Env: values(s.Env, reveal), URL: s.URL.String(), Headers: values(s.Headers, reveal)}
	if reveal {
		e.URL = s.URL.Reveal()
	}
	if format == VSCode || t != config.TransportStdio {
		e.Type = t // remote: keep sse vs http rather than leave it to detection
	}
	if s.EnvFile != "" {
		if format == Claude {
			drop("env_file")
		} else {
			e.EnvFile = s.EnvFile
		}
	}
	if s.InheritEnv {
		drop("inherit_env")
	}
	if s.OAuth != nil {
		drop("oauth")
	}
	if s.DeferredOverride != nil {
		drop("deferred")
	}
	if s.TimeoutOverrides != (config.TimeoutOverrides{}) {
		drop("timeouts")
	}
	return e, notes, true
}

func values(m map[string]secret.String, reveal bool) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v.String()
		if reveal {
			out[k] = v.Reveal()
		}
	}
	return out
}
