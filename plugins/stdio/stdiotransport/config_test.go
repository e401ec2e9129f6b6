package stdiotransport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/pluginapi"
)

func TestDescribe(t *testing.T) {
	got, err := New(nil).Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := pluginapi.Description{Name: "stdio", Version: "0.1.0", Features: features()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want Config
	}{
		{"command only", `{"command": "npx"}`, Config{Command: "npx"}},
		{
			name: "every field",
			raw:  `{"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1", "B": ""}, "env_file": "/e.env", "inherit_env": true}`,
			want: Config{Command: "npx", Args: []string{"-y", "pkg"}, Env: map[string]string{"A": "1", "B": ""}, EnvFile: "/e.env", InheritEnv: true},
		},
		{"nulls are absent fields", `{"command": "x", "args": null, "env": null, "env_file": null, "inherit_env": null}`, Config{Command: "x"}},
		{"empty arrays", `{"command": "x", "args": [], "env": {}}`, Config{Command: "x", Args: []string{}, Env: map[string]string{}}},
		{"whitespace around", " \n{\"command\":\"x\"}\n ", Config{Command: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatalf("ParseConfig() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseConfig() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateErrors(t *testing.T) {
	const secret = "sk-SECRET-123"
	const takes = "the stdio transport takes command, args, env, env_file, inherit_env"
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{"empty", ``, `validate: config is empty: the stdio transport needs at least {"command": "<executable>"}`},
		{"null", `null`, `validate: config is empty: the stdio transport needs at least {"command": "<executable>"}`},
		{"not an object", `["npx"]`, "validate: config must be a JSON object with the fields command, args, env, env_file, inherit_env; got array"},
		{"invalid JSON", `{"command": "npx",}`, "validate: config is not valid JSON: invalid character '}' looking for beginning of object key string"},
		{"trailing data", `{"command": "npx"} {}`, "validate: config is not valid JSON: invalid character '{' after top-level value"},
		{"missing command", `{"args": ["x"]}`, `validate: command is required: set "command" to the executable that starts the server, e.g. "npx"`},
		{"blank command", `{"command": "  "}`, `validate: command is required: set "command" to the executable that starts the server, e.g. "npx"`},
		{"headers", `{"command": "npx", "headers": {"Authorization": "` + secret + `"}}`, `validate: unknown field "headers": ` + takes + "; headers applies to sse/http servers"},
		{"url", `{"command": "npx", "url": "https://x"}`, `validate: unknown field "url": ` + takes + "; url applies to sse/http servers"},
		{"host setting", `{"command": "npx", "enabled": true}`, `validate: unknown field "enabled": ` + takes + "; enabled is a host setting that the host does not pass to transports"},
		{"wrong case", `{"Command": "npx"}`, `validate: unknown field "Command": ` + takes + `; did you mean "command"?`},
		{"camel case", `{"command": "npx", "inheritEnv": true}`, `validate: unknown field "inheritEnv": ` + takes + `; did you mean "inherit_env"?`},
		{"dash", `{"command": "npx", "env-file": "x"}`, `validate: unknown field "env-file": ` + takes + `; did you mean "env_file"?`},
		{"unknown null field", `{"command": "npx", "cwd": null}`, `validate: unknown field "cwd": ` + takes},
		{"command not a string", `{"command": ["npx"]}`, `validate: command must be a string, e.g. "npx"; got array`},
		{"args a string", `{"command": "npx", "args": "-y pkg"}`, `validate: args must be an array of strings, e.g. ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]; got string`},
		{"args element number", `{"command": "npx", "args": ["a", 8080]}`, `validate: args[1] must be a string: quote numbers and booleans; got number`},
		{"env an array", `{"command": "npx", "env": ["A=` + secret + `"]}`, `validate: env must be an object of string values, e.g. {"API_KEY": "..."}; got array`},
		{"env value number", `{"command": "npx", "env": {"PIN": 123456}}`, `validate: env PIN must be a string: quote numbers and booleans; got number`},
		{"env value object", `{"command": "npx", "env": {"T": {"v": "` + secret + `"}}}`, `validate: env T must be a string: quote numbers and booleans; got object`},
		{"env empty name", `{"command": "npx", "env": {"": "` + secret + `"}}`, `validate: env has an empty variable name: remove the "" key`},
		{"env name with =", `{"command": "npx", "env": {"A=B": "` + secret + `"}}`, `validate: env variable name "A=B" contains '=' or a NUL byte: rename it`},
		{"env value NUL", `{"command": "npx", "env": {"T": "` + secret + `\u0000"}}`, `validate: env T: the value contains a NUL byte: remove it`},
		{"env_file number", `{"command": "npx", "env_file": 1}`, `validate: env_file must be a string path, e.g. "/home/me/.config/server.env"; got number`},
		{"inherit_env string", `{"command": "npx", "inherit_env": "yes"}`, `validate: inherit_env must be true or false; got string`},
		{"args NUL", `{"command": "npx", "args": ["a\u0000"]}`, `validate: args[0] contains a NUL byte: remove it`},
	}
	tr := New(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tr.Validate(context.Background(), json.RawMessage(tt.raw))
			var pe *pluginapi.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Validate() error = %v, want *pluginapi.Error", err)
			}
			if pe.Op != "validate" || pe.Kind != pluginapi.KindInvalidConfig {
				t.Errorf("Op, Kind = %q, %q; want validate, invalid_config", pe.Op, pe.Kind)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("message mismatch (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "123456") {
				t.Errorf("message echoes a value: %v", err)
			}
		})
	}
}
