package config

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/plughost/plughost/lib/secret"
)

// maxEnvFileBytes caps how much of an env_file NewMasker reads.
const maxEnvFileBytes = 1 << 20

// NewMasker returns a masker that knows every secret value cfg configures:
// each server's env values and env_file values, header values, the
// password (or lone user name) and secret-named query parameters of its url
// and oauth issuer, its oauth client secret, the string values of keys kept
// for third-party transports, and the password of the gateway's Redis store
// URL. env_file is read now (relative to configDir); a file that cannot be
// read adds nothing (the server reports it when it starts).
// Disabled servers count too: their config is shown like any other.
func NewMasker(cfg *Config, configDir string) *secret.Masker {
	m := secret.NewMasker()
	AddSecrets(m, cfg, configDir)
	return m
}

// AddSecrets registers in m every secret value cfg configures, as
// NewMasker does: a host that applies a new config adds its secrets, and
// keeps masking the old ones.
func AddSecrets(m *secret.Masker, cfg *Config, configDir string) {
	if cfg == nil {
		return
	}
	for _, srv := range cfg.MCP.Servers {
		srv.addSecrets(m, configDir)
	}
	m.AddURL(cfg.MCP.Gateway.Store.URL.Reveal())
}

func (s Server) addSecrets(m *secret.Masker, configDir string) {
	for k, v := range s.Env {
		m.Add(k, v.Reveal())
	}
	for _, v := range s.Headers {
		m.AddHeader(v.Reveal())
	}
	m.AddURL(s.URL.Reveal())
	if s.OAuth != nil {
		m.AddURL(s.OAuth.Issuer)
		m.Add("client_secret", s.OAuth.ClientSecret.Reveal())
	}
	for k, v := range s.Extra {
		addJSONStrings(m, k, json.RawMessage(v.Reveal()))
	}
	if path, err := absEnvFile(s.EnvFile, configDir); err == nil && path != "" {
		for _, kv := range envFileValues(path) {
			m.Add(kv.name, kv.value)
		}
	}
}

// addJSONStrings registers every string in a JSON value, each under the
// nearest object key.
func addJSONStrings(m *secret.Masker, key string, raw json.RawMessage) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case string:
			m.Add(key, v)
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case map[string]any:
			for k, e := range v {
				walk(k, e)
			}
		}
	}
	walk(key, v)
}

// envFileValues reads the values of an env file for masking. It errs on
// the side of masking: the text after the first "=" of every line that is
// not blank or a comment counts, trimmed, both as written and without one
// pair of matching quotes. (The stdio plugin's parser is the authority on
// what the server receives; the host must not depend on plugin code.)
func envFileValues(path string) []envValue {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []envValue
	sc := bufio.NewScanner(io.LimitReader(f, maxEnvFileBytes))
	sc.Buffer(make([]byte, 0, 64<<10), maxEnvFileBytes)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(k), "export "))
		v = strings.TrimSpace(v)
		out = append(out, envValue{k, v})
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			out = append(out, envValue{k, v[1 : len(v)-1]})
		}
	}
	return out
}

// envValue is one variable of an env file.
type envValue struct{ name, value string }
