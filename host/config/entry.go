package config

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
)

// Entry is a server entry as front ends write it into the user's file: the
// keys of the spec in a readable order, empty ones left out, secrets in
// clear (it is what the file holds). It is never printed.
type Entry struct {
	// Enabled turns the server on.
	Enabled bool `json:"enabled"`
	// Deferred is the per-server discovery override; nil leaves it out.
	Deferred *bool `json:"deferred,omitempty"`
	// Type is the transport; "" leaves it to auto-detection.
	Type string `json:"type,omitempty"`
	// Command and Args run a stdio server.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Env, EnvFile and InheritEnv shape a stdio server's environment.
	Env        map[string]string `json:"env,omitempty"`
	EnvFile    string            `json:"env_file,omitempty"`
	InheritEnv bool              `json:"inherit_env,omitempty"`
	// URL and Headers reach a remote server.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Timeouts overrides global timeouts; nil leaves it out.
	Timeouts *TimeoutOverrides `json:"timeouts,omitempty"`
}

// DeferredState is a server's effective deferred state and why, for display:
// "yes (global)", "no (pinned)", "yes (opt-in)" or "no (discovery off)".
func (s Server) DeferredState(discoveryEnabled bool) (deferred bool, why string) {
	switch {
	case !discoveryEnabled:
		return false, "discovery off"
	case s.DeferredOverride == nil:
		return true, "global"
	case *s.DeferredOverride:
		return true, "opt-in"
	}
	return false, "pinned"
}

// ThirdPartyTypes lists the transport types cfg uses that are not built in,
// sorted. Pass them as ValidateOptions.ExtraTypes: whether a plugin exists
// for them is a question for the host, which can name the dirs it searched.
func ThirdPartyTypes(cfg *Config) []string {
	var out []string
	for _, srv := range cfg.MCP.Servers {
		if t := srv.Transport(); t != "" && !isBuiltin(t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// CheckUserData loads the layers with data as the user file's content and
// validates the result with the runtime's validator: what the host would
// make of the file if it were written.
func CheckUserData(opts LoadOptions, data []byte) (*Loaded, Problems, error) {
	if data == nil {
		data = []byte{}
	}
	opts.UserData = data
	l, err := Load(opts)
	if err != nil {
		return nil, Problems{}, err
	}
	return l, l.Validate(ValidateOptions{ExtraTypes: ThirdPartyTypes(l.Config)}), nil
}

// CommandWarning returns a warning when a stdio server's command is not
// found (on PATH, or at its path when it has a slash), or "" when it is
// found or the server is not stdio. It is a warning, not a problem: the
// command may be installed later, or exist only in the server's own PATH.
func CommandWarning(name string, s Server) string {
	if s.Transport() != TransportStdio || s.Command == "" {
		return ""
	}
	if _, err := exec.LookPath(s.Command); err != nil {
		where := "on PATH"
		if filepath.Base(s.Command) != s.Command {
			where = "at that path"
		}
		return fmt.Sprintf("%s: command %q is not found %s; install it or give its full path, or the server will fail to start",
			ServerPath(name, "command"), trunc(s.Command), where)
	}
	return ""
}
