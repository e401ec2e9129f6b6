package config

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
)

// ThirdPartyTypes lists the transport types cfg uses that are not built in,
// sorted. Pass them as ValidateOptions.ExtraTypes: whether a plugin exists
// for them is a question for the host, which can name the dirs it searched.
func ThirdPartyTypes(cfg *Config) []string {
	var out []string
	for _, srv := range cfg.MCP.Servers {
		if t := srv.Transport(); t != "" && !IsBuiltin(t) && !slices.Contains(out, t) {
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
