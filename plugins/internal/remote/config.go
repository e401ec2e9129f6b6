package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/plugins/internal/httppolicy"
)

// Config is the part of a server's config a remote transport receives.
type Config struct {
	// URL is the server endpoint (the SSE stream URL, or the streamable-HTTP
	// endpoint).
	URL string `json:"url"`
	// Headers are sent with every request to the server's origin.
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth is accepted and ignored: the host runs OAuth and supplies the
	// Authorization header through OpenRequest.Credentials.
	OAuth json.RawMessage `json:"oauth,omitempty"`
	// EndpointTimeoutSeconds bounds the wait for the legacy SSE endpoint
	// event (sse only; 0 means the connect deadline).
	EndpointTimeoutSeconds float64 `json:"endpoint_timeout_seconds,omitempty"`
}

// fields lists the keys each transport accepts, for strict decoding.
func fields(kind string) []string {
	if kind == KindSSE {
		return []string{"url", "headers", "oauth", "endpoint_timeout_seconds"}
	}
	return []string{"url", "headers", "oauth"}
}

// ParseConfig strictly decodes raw for the transport kind: an unknown key, a
// value of the wrong type or a bad URL or header is a *pluginapi.Error of
// KindInvalidConfig naming the field. No network is used.
func ParseConfig(kind string, raw json.RawMessage) (Config, error) {
	var cfg Config
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return cfg, invalid("the %s transport config must be a JSON object: %v", kind, err)
	}
	allowed := fields(kind)
	for k := range keys {
		if !contains(allowed, k) {
			return cfg, invalid("unknown field %q: the %s transport takes %s%s", k, kind, strings.Join(allowed, ", "), hint(k))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, invalid("%v", err)
	}
	if _, err := httppolicy.NewClient(httppolicy.Policy{ServerURL: cfg.URL, Headers: cfg.Headers}); err != nil {
		return cfg, invalid("%v", err)
	}
	if cfg.EndpointTimeoutSeconds < 0 {
		return cfg, invalid("endpoint_timeout_seconds must not be negative")
	}
	return cfg, nil
}

func hint(key string) string {
	switch key {
	case "command", "args", "env", "env_file", "inherit_env":
		return fmt.Sprintf("; %s applies to stdio servers", key)
	}
	return ""
}

func invalid(format string, args ...any) error {
	return &pluginapi.Error{Op: "validate", Kind: pluginapi.KindInvalidConfig, Err: fmt.Errorf(format, args...)}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// mediaType returns the media type of a Content-Type value, lower-cased.
func mediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return strings.ToLower(strings.TrimSpace(v))
}
