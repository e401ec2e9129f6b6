package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/plughost/plughost/lib/ownerfile"
)

// modeWarning warns when the user file at path, whose content is data, holds
// secrets and other users may read it (any group or other permission bit).
func modeWarning(path string, data []byte) string {
	problem, fix, err := ownerfile.Exposed(path)
	if err != nil || problem == "" || !holdsSecrets(data) {
		return ""
	}
	return fmt.Sprintf("config file %s holds secrets (env or header values, or credentials in a url) and %s, so other users of this machine may read them; run: %s",
		path, problem, fix)
}

// holdsSecrets reports whether a config file's servers carry a secret: an
// env or header value, an OAuth client secret, or a url with a password or
// a query. A file that is
// not valid JSON is treated as holding secrets (it may).
func holdsSecrets(data []byte) bool {
	var f struct {
		Tools struct {
			MCP struct {
				Servers map[string]struct {
					Env     map[string]json.RawMessage `json:"env"`
					Headers map[string]json.RawMessage `json:"headers"`
					URL     json.RawMessage            `json:"url"`
					OAuth   struct {
						ClientSecret json.RawMessage `json:"client_secret"`
					} `json:"oauth"`
				} `json:"servers"`
			} `json:"mcp"`
		} `json:"tools"`
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return false
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return true
	}
	for _, s := range f.Tools.MCP.Servers {
		if len(s.Env) > 0 || len(s.Headers) > 0 || len(s.OAuth.ClientSecret) > 0 {
			return true
		}
		var raw string
		if json.Unmarshal(s.URL, &raw) == nil {
			if u, err := url.Parse(raw); err == nil && (u.User != nil || u.RawQuery != "") {
				return true
			}
		}
	}
	return false
}
