package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/plughost/plughost/lib/secret"
)

// MarshalJSON encodes the server for display: secrets masked (env and
// header values are secret.String), and the keys of Extra, whose values may
// be secrets too, with their values masked.
func (s Server) MarshalJSON() ([]byte, error) {
	type plain Server // plain has no methods, so this does not recurse
	b, err := marshalText(plain(s))
	if err != nil || len(s.Extra) == 0 {
		return b, err
	}
	masked := make(map[string]json.RawMessage, len(s.Extra))
	for k := range s.Extra {
		masked[k] = json.RawMessage(`"` + secret.Masked + `"`)
	}
	return appendKeys(b, masked)
}

// fileServer is a Server as the user's file holds it: the spec's keys in a
// readable order, empty ones left out, secrets in clear.
type fileServer struct {
	Enabled    bool              `json:"enabled"`
	Deferred   *bool             `json:"deferred,omitempty"`
	Type       string            `json:"type,omitempty"`
	Command    string            `json:"command,omitempty"`
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	EnvFile    string            `json:"env_file,omitempty"`
	InheritEnv bool              `json:"inherit_env,omitempty"`
	URL        string            `json:"url,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	OAuth      *fileOAuth        `json:"oauth,omitempty"`
	Timeouts   TimeoutOverrides  `json:"timeouts,omitzero"`
	MaxMessage *int              `json:"max_message_mb,omitempty"`
	MaxResult  *int              `json:"max_result_mb,omitempty"`
	Isolation  string            `json:"isolation,omitempty"`
	IdleSecs   int               `json:"isolation_idle_seconds,omitempty"`
	MaxSess    int               `json:"max_sessions,omitempty"`
	Roots      []string          `json:"roots,omitempty"`
	Include    []string          `json:"include_tools,omitempty"`
	Exclude    []string          `json:"exclude_tools,omitempty"`
	Trust      string            `json:"trust,omitempty"`
	TrustScan  string            `json:"trust_scan,omitempty"`
}

// fileOAuth is an OAuth block as the file holds it: the client secret in
// clear.
type fileOAuth struct {
	ClientID          string   `json:"client_id,omitempty"`
	ClientSecret      string   `json:"client_secret,omitempty"`
	ClientMetadataURL string   `json:"client_metadata_url,omitempty"`
	Issuer            string   `json:"issuer,omitempty"`
	Scopes            []string `json:"scopes,omitempty"`
	CallbackPort      int      `json:"callback_port,omitempty"`
}

func (o *OAuth) file() *fileOAuth {
	if o == nil {
		return nil
	}
	return &fileOAuth{ClientID: o.ClientID, ClientSecret: o.ClientSecret.Reveal(), ClientMetadataURL: o.ClientMetadataURL,
		Issuer: o.Issuer, Scopes: o.Scopes, CallbackPort: o.CallbackPort}
}

// FileJSON returns the server entry as the user's config file holds it, for
// front ends that write it: the spec's keys in a readable order, empty ones
// left out, secrets in clear, then the keys of Extra (sorted). Never print
// it; json.Marshal of a Server is the masked form for display.
func (s Server) FileJSON() (json.RawMessage, error) {
	b, err := marshalText(fileServer{
		Enabled: s.Enabled, Deferred: s.DeferredOverride, Type: s.Type,
		Command: s.Command, Args: s.Args, Env: reveal(s.Env), EnvFile: s.EnvFile, InheritEnv: s.InheritEnv,
		URL: s.URL.Reveal(), Headers: reveal(s.Headers), OAuth: s.OAuth.file(), Timeouts: s.TimeoutOverrides,
		MaxMessage: s.MaxMessageMBOverride, MaxResult: s.MaxResultMBOverride,
		Isolation: s.Isolation, IdleSecs: s.IsolationIdleSeconds, MaxSess: s.MaxSessions, Roots: s.Roots,
		Include: s.IncludeTools, Exclude: s.ExcludeTools, Trust: s.Trust, TrustScan: s.TrustScan,
	})
	if err != nil {
		return nil, fmt.Errorf("encode server entry: %w", err)
	}
	extra := make(map[string]json.RawMessage, len(s.Extra))
	for k, v := range s.Extra {
		if !json.Valid([]byte(v.Reveal())) {
			return nil, fmt.Errorf("encode server entry: key %q does not hold valid JSON", k)
		}
		extra[k] = json.RawMessage(v.Reveal())
	}
	return appendKeys(b, extra)
}

// appendKeys adds keys (sorted) with their raw values to the JSON object b.
func appendKeys(b []byte, keys map[string]json.RawMessage) ([]byte, error) {
	if len(keys) == 0 {
		return b, nil
	}
	var out bytes.Buffer
	out.Write(b[:len(b)-1]) // without the closing brace
	sep := ","
	if bytes.Equal(b, []byte("{}")) {
		sep = ""
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		key, _ := marshalText(k) // a string always encodes
		out.WriteString(sep)
		out.Write(key)
		out.WriteByte(':')
		out.Write(keys[k])
		sep = ","
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// marshalText is json.Marshal without HTML escaping: a file keeps "&" and
// "<" as the user wrote them.
func marshalText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
