package stdiotransport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/plughost/plughost/pluginapi"
)

// Config is the part of a server's configuration the stdio transport reads.
type Config struct {
	// Command is the executable that starts the server, looked up in the
	// server's PATH when it holds no path separator.
	Command string `json:"command"`
	// Args are the command's arguments.
	Args []string `json:"args,omitempty"`
	// Env sets variables of the server process, overriding all others.
	Env map[string]string `json:"env,omitempty"`
	// EnvFile is an env file whose variables are added to the server process.
	EnvFile string `json:"env_file,omitempty"`
	// InheritEnv passes the plugin's whole environment instead of the allowlist.
	InheritEnv bool `json:"inherit_env,omitempty"`
}

// fieldList names the keys the transport accepts, as errors list them.
const fieldList = "command, args, env, env_file, inherit_env"

// ParseConfig strictly decodes raw, a JSON object. An unknown field (keys are
// case-sensitive), a wrong type, invalid JSON or a missing command is a
// *pluginapi.Error of KindInvalidConfig whose message names the field and says
// how to fix it. No message holds a value of args or env; JSON null counts as
// an absent field.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var cfg Config
	obj, err := decodeObject(raw)
	if err != nil {
		return cfg, err
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := cfg.decodeField(k, obj[k]); err != nil {
			return Config{}, err
		}
	}
	if err := cfg.check(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// decodeObject decodes raw into its top-level fields.
func decodeObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil, invalid(`config is empty: the stdio transport needs at least {"command": "<executable>"}`)
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		return nil, invalid(fmt.Sprintf("config is not valid JSON: %v", err))
	}
	if trimmed[0] != '{' {
		return nil, invalid(fmt.Sprintf("config must be a JSON object with the fields %s; got %s",
			fieldList, jsonType(trimmed)))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return nil, invalid(fmt.Sprintf("config cannot be read: %v", err))
	}
	return obj, nil
}

// decodeField stores the value of one top-level field.
func (c *Config) decodeField(key string, v json.RawMessage) error {
	if jsonType(v) == "null" {
		if !isField(key) {
			return invalid(describeUnknownField(key))
		}
		return nil
	}
	switch key {
	case "command":
		return decodeAs(v, &c.Command, "string", `command must be a string, e.g. "npx"`)
	case "env_file":
		return decodeAs(v, &c.EnvFile, "string", `env_file must be a string path, e.g. "/home/me/.config/server.env"`)
	case "inherit_env":
		return decodeAs(v, &c.InheritEnv, "boolean", "inherit_env must be true or false")
	case "args":
		return c.decodeArgs(v)
	case "env":
		return c.decodeEnv(v)
	}
	return invalid(describeUnknownField(key))
}

// decodeArgs decodes args, naming the first element that is not a string.
func (c *Config) decodeArgs(v json.RawMessage) error {
	var items []json.RawMessage
	if err := decodeAs(v, &items, "array",
		`args must be an array of strings, e.g. ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]`); err != nil {
		return err
	}
	c.Args = make([]string, len(items))
	for i, item := range items {
		msg := fmt.Sprintf("args[%d] must be a string: quote numbers and booleans", i)
		if err := decodeAs(item, &c.Args[i], "string", msg); err != nil {
			return err
		}
	}
	return nil
}

// decodeEnv decodes env, naming the first variable whose value is not a string.
func (c *Config) decodeEnv(v json.RawMessage) error {
	var vars map[string]json.RawMessage
	if err := decodeAs(v, &vars, "object", `env must be an object of string values, e.g. {"API_KEY": "..."}`); err != nil {
		return err
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c.Env = make(map[string]string, len(vars))
	for _, k := range keys {
		var s string
		msg := fmt.Sprintf("env %s must be a string: quote numbers and booleans", k)
		if err := decodeAs(vars[k], &s, "string", msg); err != nil {
			return err
		}
		c.Env[k] = s
	}
	return nil
}

// decodeAs decodes v into dst when v has JSON type want; otherwise it returns
// msg and the type found (never the value).
func decodeAs(v json.RawMessage, dst any, want, msg string) error {
	if got := jsonType(v); got != want {
		return invalid(fmt.Sprintf("%s; got %s", msg, got))
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return invalid(msg)
	}
	return nil
}

// jsonType names the JSON type of a valid JSON value.
func jsonType(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// check enforces what the JSON types cannot.
func (c Config) check() error {
	if strings.TrimSpace(c.Command) == "" {
		return invalid(`command is required: set "command" to the executable that starts the server, e.g. "npx"`)
	}
	if strings.IndexByte(c.Command, 0) >= 0 {
		return invalid("command contains a NUL byte: remove it")
	}
	for i, a := range c.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return invalid(fmt.Sprintf("args[%d] contains a NUL byte: remove it", i))
		}
	}
	if strings.IndexByte(c.EnvFile, 0) >= 0 {
		return invalid("env_file contains a NUL byte: remove it")
	}
	return checkEnv(c.Env)
}

// checkEnv rejects names and values no process environment can hold.
func checkEnv(env map[string]string) error {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case k == "":
			return invalid(`env has an empty variable name: remove the "" key`)
		case strings.ContainsAny(k, "=\x00"):
			return invalid(fmt.Sprintf("env variable name %q contains '=' or a NUL byte: rename it", k))
		case strings.IndexByte(env[k], 0) >= 0:
			return invalid(fmt.Sprintf("env %s: the value contains a NUL byte: remove it", k))
		}
	}
	return nil
}

// isField reports whether key is one of the accepted fields.
func isField(key string) bool {
	switch key {
	case "command", "args", "env", "env_file", "inherit_env":
		return true
	}
	return false
}

// describeUnknownField says what the transport takes instead of name.
func describeUnknownField(name string) string {
	msg := fmt.Sprintf("unknown field %q: the stdio transport takes %s", name, fieldList)
	switch name {
	case "url", "headers", "oauth":
		return msg + "; " + name + " applies to sse/http servers"
	case "enabled", "deferred", "type":
		return msg + "; " + name + " is a host setting that the host does not pass to transports"
	}
	norm := strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(name), "-", ""), "_", "")
	for _, f := range strings.Split(fieldList, ", ") {
		if norm == strings.ReplaceAll(f, "_", "") {
			return msg + fmt.Sprintf("; did you mean %q?", f)
		}
	}
	return msg
}

// invalid builds the validation error of the contract.
func invalid(msg string) error {
	return &pluginapi.Error{Op: "validate", Kind: pluginapi.KindInvalidConfig, Err: errors.New(msg)}
}
