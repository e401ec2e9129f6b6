package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/lib/secret"
)

// serverCase validates a single server written as JSON.
type serverCase struct {
	name   string
	server string   // the server's JSON object
	extra  []string // ValidateOptions.ExtraTypes
	want   []string // the server's problems, in full
}

func runServerCases(t *testing.T, tests []serverCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ld := loadUser(t, `{"tools":{"mcp":{"servers":{"my.server":`+tt.server+`}}}}`)
			p := ld.Validate(ValidateOptions{ExtraTypes: tt.extra})
			if len(p.Fatal) > 0 {
				t.Errorf("unexpected fatal problems: %v", messages(p.Fatal))
			}
			if diff := cmp.Diff(tt.want, messages(p.Servers["my.server"])); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			if (p.ServerErr("my.server") == nil) != (len(tt.want) == 0) {
				t.Errorf("ServerErr = %v", p.ServerErr("my.server"))
			}
		})
	}
}

const srv = `tools.mcp.servers["my.server"]`

func TestValidateServerTransport(t *testing.T) {
	runServerCases(t, []serverCase{
		{name: "stdio ok", server: `{"enabled":true,"command":"npx","args":["-y"],"env":{"A":"b"},"env_file":".env","inherit_env":true}`},
		{name: "sse ok", server: `{"enabled":true,"url":"https://example.com/mcp","headers":{"X-Key":"k"}}`},
		{name: "http ok", server: `{"enabled":false,"type":"http","url":"http://localhost:3001/mcp","oauth":{"scopes":["a"],"callback_port":8765}}`},
		{name: "streamable-http alias ok", server: `{"enabled":true,"type":"streamable-http","url":"https://x/mcp"}`},
		{name: "explicit stdio with command and no url", server: `{"enabled":true,"type":"stdio","command":"x"}`},
		{
			name: "masked env value", server: `{"enabled":true,"command":"x","env":{"K":"****","L":"*****"}}`,
			want: []string{srv + `.env.K: is "****", the mask plughost shows in place of a secret, not a value; type the real value (a "****" sent back through the API keeps a stored value only where one is stored under the same key)`},
		},
		{
			name: "masked header, client secret and url", server: `{"enabled":true,"type":"http","url":"https://u:****@x/mcp?token=****","headers":{"X-Key":"****"},"oauth":{"client_id":"c","client_secret":"****"}}`,
			want: []string{
				srv + `.headers.X-Key: is "****", the mask plughost shows in place of a secret, not a value; type the real value (a "****" sent back through the API keeps a stored value only where one is stored under the same key)`,
				srv + `.oauth.client_secret: is "****", the mask plughost shows in place of a secret, not a value; type the real value (a "****" sent back through the API keeps a stored value only where one is stored under the same key)`,
				srv + `.url: its password is "****", the mask plughost shows in place of a secret, not a value; type the real one`,
				srv + `.url: its query parameter "token" is "****", the mask plughost shows in place of a secret, not a value; type the real one`,
			},
		},
		{
			name: "enabled missing", server: `{"command":"npx"}`,
			want: []string{srv + `.enabled: required key is missing; add "enabled": true to use the server (or false to keep it configured but off)`},
		},
		{
			name: "enabled wrong type", server: `{"enabled":"yes","command":"npx"}`,
			want: []string{srv + `.enabled: expected a boolean, got string "yes" in ` + testUserFile + `; write true or false, without quotes`},
		},
		{
			name: "unknown type", server: `{"enabled":true,"type":"slack","command":"npx"}`,
			want: []string{srv + `.type: server "my.server": field "type" has unknown transport "slack"; known types: stdio, sse, http, streamable-http (alias of http). Remove "type" to detect the transport from "command" or "url", use a known type, or install a transport plugin named mcp-transport-slack`},
		},
		{
			name: "unknown type lists extra types", server: `{"enabled":true,"type":"slack","command":"npx"}`, extra: []string{"websocket"},
			want: []string{srv + `.type: server "my.server": field "type" has unknown transport "slack"; known types: stdio, sse, http, streamable-http (alias of http), websocket. Remove "type" to detect the transport from "command" or "url", use a known type, or install a transport plugin named mcp-transport-slack`},
		},
		{name: "third-party type found on disk", server: `{"enabled":true,"type":"slack","command":"npx","env":{"A":"b"}}`, extra: []string{"slack"}},
		{name: "oauth on a third-party type", server: `{"enabled":true,"type":"slack","command":"npx","oauth":{}}`, extra: []string{"slack"},
			want: []string{srv + `.oauth: "oauth" applies only to sse/http servers, but this server uses the slack transport; remove "oauth" (or change "type")`}},
		{
			name: "stdio without command", server: `{"enabled":true,"type":"stdio"}`,
			want: []string{srv + `.command: a stdio server needs "command", the executable to run (e.g. "npx"); set it, or set "url" to use a remote server instead`},
		},
		{
			name: "neither command nor url", server: `{"enabled":true}`,
			want: []string{srv + `: neither "command" nor "url" is set; set "command" to run a local stdio server, or "url" to connect to a remote sse/http server`},
		},
		{
			name: "sse without url", server: `{"enabled":true,"type":"sse"}`,
			want: []string{srv + `.url: the sse transport needs "url", the endpoint to connect to; write a full address such as "https://example.com/mcp"`},
		},
		{
			name: "http without url", server: `{"enabled":true,"type":"streamable-http"}`,
			want: []string{srv + `.url: the http transport needs "url", the endpoint to connect to; write a full address such as "https://example.com/mcp"`},
		},
		{
			name: "url not http", server: `{"enabled":true,"url":"ftp://user:pw@example.com/x"}`,
			want: []string{srv + `.url: must start with http:// or https://, got scheme "ftp"; write a full address such as "https://example.com/mcp"`},
		},
		{
			name: "url without scheme", server: `{"enabled":true,"url":"example.com/mcp"}`,
			want: []string{srv + `.url: must start with http:// or https://, got no scheme; write a full address such as "https://example.com/mcp"`},
		},
		{
			name: "url without host", server: `{"enabled":true,"url":"https:///mcp"}`,
			want: []string{srv + `.url: has no host; write a full address such as "https://example.com/mcp"`},
		},
		{
			name: "url unparsable", server: `{"enabled":true,"url":"https://exa mple.com:x/"}`,
			want: []string{srv + `.url: is not a valid URL; write a full address such as "https://example.com/mcp"`},
		},
		{
			name: "url and command without type", server: `{"enabled":true,"url":"https://x/y","command":"npx"}`,
			want: []string{srv + `.type: both "command" and "url" are set, so the transport is ambiguous; set type to "stdio" (to run command) or "sse"/"http" (to connect to url), and remove the key the other transport does not use`},
		},
		{
			name: "stdio fields on sse", server: `{"enabled":true,"type":"sse","url":"https://x/y","command":"c","args":["a"],"env":{"A":"b"},"env_file":"f","inherit_env":true}`,
			want: []string{
				srv + `.command: "command" applies only to stdio servers, but this server uses the sse transport; remove "command" (or change "type")`,
				srv + `.args: "args" applies only to stdio servers, but this server uses the sse transport; remove "args" (or change "type")`,
				srv + `.env: "env" applies only to stdio servers, but this server uses the sse transport; remove "env" (or change "type")`,
				srv + `.env_file: "env_file" applies only to stdio servers, but this server uses the sse transport; remove "env_file" (or change "type")`,
				srv + `.inherit_env: "inherit_env" applies only to stdio servers, but this server uses the sse transport; remove "inherit_env" (or change "type")`,
			},
		},
		{
			name: "env on http", server: `{"enabled":true,"type":"http","url":"https://x/y","env":{"A":"b"}}`,
			want: []string{srv + `.env: "env" applies only to stdio servers, but this server uses the http transport; remove "env" (or change "type")`},
		},
		{
			name: "remote fields on stdio", server: `{"enabled":true,"type":"stdio","command":"c","url":"https://x/y","headers":{"A":"b"},"oauth":{}}`,
			want: []string{
				srv + `.url: "url" applies only to sse/http servers, but this server uses the stdio transport; remove "url" (or change "type")`,
				srv + `.headers: "headers" applies only to sse/http servers, but this server uses the stdio transport; remove "headers" (or change "type")`,
				srv + `.oauth: "oauth" applies only to sse/http servers, but this server uses the stdio transport; remove "oauth" (or change "type")`,
			},
		},
		{
			name: "headers on auto-detected stdio", server: `{"enabled":true,"command":"c","headers":{"A":"b"}}`,
			want: []string{srv + `.headers: "headers" applies only to sse/http servers, but this server uses the stdio transport; remove "headers" (or change "type")`},
		},
		{
			name: "oauth with Authorization header", server: `{"enabled":true,"url":"https://x/y","headers":{"authorization":"Bearer t"},"oauth":{}}`,
			want: []string{srv + `.oauth: "oauth" cannot be combined with an "authorization" header: OAuth supplies the Authorization header itself; remove the header, or remove "oauth" to keep using it`},
		},
		{
			name: "oauth callback port", server: `{"enabled":true,"url":"https://x/y","oauth":{"callback_port":70000,"issuer":"ftp://i"}}`,
			want: []string{
				srv + `.oauth.callback_port: must be between 1 and 65535, got 70000; or remove it to use any free port`,
				srv + `.oauth.issuer: must start with http:// or https://, got scheme "ftp"; write a full address such as "https://example.com/mcp"`,
			},
		},
		{
			name:   "oauth client secret without id, bad metadata document URL",
			server: `{"enabled":true,"url":"https://x/y","oauth":{"client_secret":"s3cret","client_metadata_url":"http://x/doc.json"}}`,
			want: []string{
				srv + `.oauth.client_secret: is set without "client_id"; set the client_id the secret belongs to, or remove the secret to register a client automatically`,
				srv + `.oauth.client_metadata_url: must be an https URL with a path, where the client ID metadata document is published, e.g. "https://example.com/plughost-client.json"`,
			},
		},
		{
			name: "bad header name and value", server: `{"enabled":true,"url":"https://x/y","headers":{"Bad Name":"v","X-Ok":"a\r\nb"}}`,
			want: []string{
				srv + `.headers["Bad Name"]: invalid HTTP header name; use letters, digits and -, e.g. "X-Api-Key"`,
				srv + `.headers.X-Ok: the value contains a line break or NUL character; remove it`,
			},
		},
		{
			name: "bad env name", server: `{"enabled":true,"command":"c","env":{"A=B":"v","":"w"}}`,
			want: []string{
				srv + `.env[""]: invalid environment variable name: it must be non-empty and contain no "=" or NUL character`,
				srv + `.env["A=B"]: invalid environment variable name: it must be non-empty and contain no "=" or NUL character`,
			},
		},
		{
			name: "server timeouts", server: `{"enabled":true,"command":"c","timeouts":{"call_seconds":0,"start_seconds":2.5}}`,
			want: []string{srv + `.timeouts.call_seconds: must be greater than 0, got 0; set a number of seconds, or remove it to use tools.mcp.timeouts.call_seconds`},
		},
		{
			name: "server message limit", server: `{"enabled":true,"command":"c","max_message_mb":0}`,
			want: []string{srv + `.max_message_mb: must be between 1 and 1024 (MiB), got 0; set the largest message a server may send, or remove it to use tools.mcp.max_message_mb`},
		},
		{name: "server message limit ok", server: `{"enabled":true,"command":"c","max_message_mb":1024}`},
		{
			name: "server result limit", server: `{"enabled":true,"command":"c","max_result_mb":2000}`,
			want: []string{srv + `.max_result_mb: must be between 1 and 1024 (MiB), got 2000; set the largest tools/call result a server may send, or remove it to use tools.mcp.max_result_mb`},
		},
		{
			name: "unknown key with suggestion", server: `{"enabled":true,"comand":"npx"}`,
			want: []string{
				srv + `.comand: unknown key "comand" (did you mean "command"?) in ` + testUserFile,
				srv + `: neither "command" nor "url" is set; set "command" to run a local stdio server, or "url" to connect to a remote sse/http server`,
			},
		},
		{
			name: "nested unknown key", server: `{"enabled":true,"url":"https://x/y","oauth":{"clientid":"x"}}`,
			want: []string{srv + `.oauth.clientid: unknown key "clientid" (did you mean "client_id"?) in ` + testUserFile},
		},
		{
			name: "wrong types", server: `{"enabled":true,"command":"c","args":"-y","deferred":"no","env":{"A":1},"timeouts":{"call_seconds":"60"}}`,
			want: []string{
				srv + `.args: expected an array of strings, got string "-y" in ` + testUserFile + `; write a JSON array such as ["a", "b"]`,
				srv + `.deferred: expected a boolean, got string "no" in ` + testUserFile + `; write true or false, without quotes`,
				srv + `.env.A: expected a string, got a number in ` + testUserFile + `; write the value in double quotes, such as "text"`,
				srv + `.timeouts.call_seconds: expected a number, got string "60" in ` + testUserFile + `; write a number such as 30, without quotes`,
			},
		},
		{
			name: "server not an object", server: `"npx"`,
			want: []string{srv + `: expected an object, got string "npx" in ` + testUserFile + `; write a JSON object such as {"key": "value"}`},
		},
	})
}

func TestValidateGlobal(t *testing.T) {
	tests := []struct {
		name string
		mcp  string
		want []string
	}{
		{name: "defaults ok", mcp: `{}`},
		{name: "discovery on with bm25", mcp: `{"discovery":{"enabled":true}}`},
		{name: "discovery on with regex only", mcp: `{"discovery":{"enabled":true,"use_bm25":false,"use_regex":true}}`},
		{name: "no search engine but discovery off", mcp: `{"discovery":{"use_bm25":false}}`},
		{
			name: "discovery on without search engine", mcp: `{"discovery":{"enabled":true,"use_bm25":false,"use_regex":false}}`,
			want: []string{"tools.mcp.discovery.use_bm25: discovery is enabled but both search tools are off, so hidden tools could never be found; set tools.mcp.discovery.use_bm25 or tools.mcp.discovery.use_regex to true, or set tools.mcp.discovery.enabled to false"},
		},
		{
			name: "ranges", mcp: `{"discovery":{"enabled":true,"ttl":0,"max_search_results":51},"max_inline_text_chars":255,"workspace":" "}`,
			want: []string{
				"tools.mcp.discovery.ttl: must be at least 1, got 0; set the number of turns a found tool stays unlocked (default 5)",
				"tools.mcp.discovery.max_search_results: must be between 1 and 50, got 51; set a value in that range (default 5)",
				"tools.mcp.max_inline_text_chars: must be at least 256, got 255; set a larger budget (default 16384)",
				`tools.mcp.workspace: must not be empty; set it to a directory for result artifacts (default "~/.plughost/workspace")`,
			},
		},
		{name: "semantic auto with an endpoint", mcp: `{"discovery":{"semantic":{"word_vectors":"auto","endpoint":{"url":"http://127.0.0.1:11434/v1","model":"nomic-embed-text"}}}}`},
		{
			name: "semantic", mcp: `{"discovery":{"semantic":{"word_vectors":" ","endpoint":{"url":"ftp://x","timeout_seconds":-1}}}}`,
			want: []string{
				`tools.mcp.discovery.semantic.word_vectors: must not be blank; set "off", "auto" or the path of a word-vector file`,
				"tools.mcp.discovery.semantic.endpoint.url: must be an http(s) URL such as http://127.0.0.1:11434/v1, or empty to use no endpoint",
				"tools.mcp.discovery.semantic.endpoint.model: must name the embedding model when endpoint.url is set (e.g. nomic-embed-text)",
				"tools.mcp.discovery.semantic.endpoint.timeout_seconds: must not be negative, got -1; set how long one embedding call may take (0 = the default, 2)",
			},
		},
		{
			name: "artifact retention", mcp: `{"artifacts":{"max_age_hours":0,"max_total_mb":-5}}`,
			want: []string{
				"tools.mcp.artifacts.max_age_hours: must be greater than 0, got 0; set how many hours saved results are kept (default 168)",
				"tools.mcp.artifacts.max_total_mb: must be greater than 0, got -5; set how many MiB of saved results are kept (default 1024)",
			},
		},
		{
			name: "artifact search limits", mcp: `{"artifacts":{"search_timeout_seconds":0,"search_max_mb":-1}}`,
			want: []string{
				"tools.mcp.artifacts.search_timeout_seconds: must be greater than 0, got 0; set how many seconds one search_files call may run (default 10)",
				"tools.mcp.artifacts.search_max_mb: must be greater than 0, got -1; set how many MiB one search_files call may read (default 256)",
			},
		},
		{name: "artifact retention fractions ok", mcp: `{"artifacts":{"max_age_hours":0.5,"max_total_mb":0.25}}`},
		{
			name: "audit", mcp: `{"audit":{"dir":" ","max_file_mb":0,"max_files":0}}`,
			want: []string{
				`tools.mcp.audit.dir: must name a directory when the audit log is enabled (default "~/.plughost/audit"), or set tools.mcp.audit.enabled to false`,
				"tools.mcp.audit.max_file_mb: must be greater than 0, got 0; set how many MiB one audit file may grow to before it is rotated (default 10)",
				"tools.mcp.audit.max_files: must be at least 1, got 0; set how many rotated audit files are kept (default 10)",
			},
		},
		{name: "audit off is not checked", mcp: `{"audit":{"enabled":false,"dir":"","max_file_mb":0}}`},
		{
			name: "limits checked with discovery off", mcp: `{"discovery":{"ttl":-1,"max_search_results":51}}`,
			want: []string{
				"tools.mcp.discovery.ttl: must be at least 1, got -1; set the number of turns a found tool stays unlocked (default 5)",
				"tools.mcp.discovery.max_search_results: must be between 1 and 50, got 51; set a value in that range (default 5)",
			},
		},
		{
			name: "masked store url", mcp: `{"gateway":{"store":{"type":"redis","url":"redis://:****@127.0.0.1:6379/0"}}}`,
			want: []string{`tools.mcp.gateway.store.url: its password is "****", the mask plughost shows in place of a secret, not a value; type the real one`},
		},
		{name: "range edges ok", mcp: `{"discovery":{"ttl":1,"max_search_results":50},"max_inline_text_chars":256}`},
		{name: "integral float accepted", mcp: `{"discovery":{"ttl":2.0}}`},
		{
			name: "result limit", mcp: `{"max_result_mb":0}`,
			want: []string{"tools.mcp.max_result_mb: must be between 1 and 1024 (MiB), got 0; set the largest tools/call result a server may send (default 256)"},
		},
		{
			name: "message limit", mcp: `{"max_message_mb":2048}`,
			want: []string{"tools.mcp.max_message_mb: must be between 1 and 1024 (MiB), got 2048; set the largest message a server may send (default 64)"},
		},
		{
			name: "timeouts and restart", mcp: `{"timeouts":{"start_seconds":0,"call_seconds":-1},"restart":{"initial_backoff_seconds":5,"max_backoff_seconds":2}}`,
			want: []string{
				"tools.mcp.timeouts.start_seconds: must be greater than 0, got 0; set a number of seconds (default 15)",
				"tools.mcp.timeouts.call_seconds: must be greater than 0, got -1; set a number of seconds (default 120)",
				"tools.mcp.restart.max_backoff_seconds: must be at least initial_backoff_seconds (5), got 2; raise it or lower initial_backoff_seconds",
			},
		},
		{
			name: "plugins", mcp: `{"plugins":{"dirs":["/a",""],"sha256":{"stdio":"abc","sse":"` + strings.Repeat("aB", 32) + `"}}}`,
			want: []string{
				"tools.mcp.plugins.dirs[1]: is empty; remove the entry or give a directory",
				"tools.mcp.plugins.sha256.stdio: must be a sha256 digest of 64 hexadecimal characters, got 3 characters; compute it with: sha256sum mcp-transport-stdio",
			},
		},
		{
			name: "unknown keys with suggestions", mcp: `{"discovry":{},"servers":{},"max_inline_text_char":300}`,
			want: []string{
				`tools.mcp.discovry: unknown key "discovry" (did you mean "discovery"?) in ` + testUserFile,
				`tools.mcp.max_inline_text_char: unknown key "max_inline_text_char" (did you mean "max_inline_text_chars"?) in ` + testUserFile,
			},
		},
		{
			name: "wrong types", mcp: `{"enabled":1,"discovery":{"ttl":2.5,"max_search_results":"5"},"servers":[]}`,
			want: []string{
				`tools.mcp.discovery.max_search_results: expected an integer, got string "5" in ` + testUserFile + `; write a whole number such as 5, without quotes`,
				`tools.mcp.discovery.ttl: expected an integer, got number 2.5 in ` + testUserFile + `; write a whole number such as 5, without quotes`,
				`tools.mcp.enabled: expected a boolean, got number 1 in ` + testUserFile + `; write true or false, without quotes`,
				`tools.mcp.servers: expected an object, got an array in ` + testUserFile + `; write a JSON object such as {"key": "value"}`,
			},
		},
		{
			name: "number out of range", mcp: `{"timeouts":{"call_seconds":1e999}}`,
			want: []string{`tools.mcp.timeouts.call_seconds: number 1e999 is out of range in ` + testUserFile + `; write a number such as 30, without quotes`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ld := loadUser(t, `{"tools":{"mcp":`+tt.mcp+`}}`)
			p := ld.Validate(ValidateOptions{})
			if diff := cmp.Diff(tt.want, messages(p.Fatal)); diff != "" {
				t.Errorf("fatal mismatch (-want +got):\n%s", diff)
			}
			if len(p.Servers) > 0 {
				t.Errorf("unexpected server problems: %v", p.Servers)
			}
			if (p.Err() == nil) != (len(tt.want) == 0) {
				t.Errorf("Err() = %v", p.Err())
			}
		})
	}
}

func TestUnknownTopLevelKeys(t *testing.T) {
	ld := loadUser(t, `{"tool":{},"tools":{"mcp":{},"mpc":{}}}`)
	want := []string{
		`tool: unknown key "tool" (did you mean "tools"?) in ` + testUserFile,
		`tools.mpc: unknown key "mpc" (did you mean "mcp"?) in ` + testUserFile,
	}
	if diff := cmp.Diff(want, messages(ld.Validate(ValidateOptions{}).Fatal)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestClosest(t *testing.T) {
	known := []string{"args", "command", "enabled", "env", "env_file", "headers", "url"}
	tests := []struct{ key, want string }{
		{"comand", "command"},
		{"Command", "command"},
		{"ENV_FILE", "env_file"},
		{"envfile", "env_file"},
		{"header", "headers"},
		{"uri", "url"},
		{"xyzzy", ""},
		{"", ""},
		{"client", ""},
		{"head", "headers"},
		{"completely-different", ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := closest(tt.key, known); got != tt.want {
				t.Errorf("closest(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestProblemsAccessors(t *testing.T) {
	ld := loadUser(t, `{"tools":{"mcp":{"discovery":{"enabled":true,"ttl":0},"servers":{"a":{"enabled":true},"b":{"enabled":true,"command":"x"}}}}}`)
	p := ld.Validate(ValidateOptions{})
	var ve *ValidationError
	if err := p.Err(); !errors.As(err, &ve) || ve.Path != "tools.mcp.discovery.ttl" {
		t.Errorf("Err() = %v", err)
	}
	if err := p.ServerErr("a"); !errors.As(err, &ve) || ve.Path != "tools.mcp.servers.a" {
		t.Errorf("ServerErr(a) = %v", err)
	}
	if err := p.ServerErr("b"); err != nil {
		t.Errorf("ServerErr(b) = %v", err)
	}
	want := []string{"tools.mcp.discovery.ttl", "tools.mcp.servers.a"}
	var got []string
	for _, e := range p.All() {
		got = append(got, e.Path)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("All() mismatch (-want +got):\n%s", diff)
	}
	if (&ValidationError{Msg: "m"}).Error() != "m" || (&ValidationError{Path: "p", Msg: "m"}).Error() != "p: m" {
		t.Error("ValidationError.Error format")
	}
	if !(Problems{}).Empty() || (Problems{}).Err() != nil {
		t.Error("zero Problems must be empty")
	}
}

// TestValidateTyped covers Validate on configs built in Go (no layers).
func TestValidateTyped(t *testing.T) {
	cfg, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCP.Servers = map[string]Server{
		"x":  {Enabled: true, Command: "c", Extra: map[string]secret.String{"comand": `"c"`}},
		"":   {Enabled: true, Command: "c"},
		"\n": {Enabled: true, Command: "c"},
	}
	p := Validate(cfg, ValidateOptions{})
	got := map[string][]string{}
	for name, list := range p.Servers {
		got[name] = messages(list)
	}
	want := map[string][]string{
		"":   {`tools.mcp.servers[""]: the server name is empty; give the server a name: ` + ServerNameRule},
		"\n": {`tools.mcp.servers["\n"]: the server name "\n" starts with "\n"; rename the server (e.g. "server"): ` + ServerNameRule},
		"x":  {`tools.mcp.servers.x.comand: unknown key "comand" (did you mean "command"?)`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if p := Validate(nil, ValidateOptions{}); p.Err() == nil {
		t.Error("Validate(nil) must be fatal")
	}
}

// TestMessagesNeverShowSecrets puts secret values everywhere a message could
// quote them.
func TestMessagesNeverShowSecrets(t *testing.T) {
	const s = "S3CR3T-VALUE"
	// A URL's credentials are not a secret field (only env and header values
	// are), so configs with one are checked for messages only.
	configs := []struct {
		json    string
		display bool
	}{
		{`{"enabled":true,"url":"https://x/y","headers":{"Authorization":"` + s + `","Bad Name":"` + s + `","X":"` + s + `\n"},"oauth":{}}`, true},
		{`{"enabled":true,"command":"c","env":{"A":["` + s + `"],"B":{"k":"` + s + `"},"C":true,"D":"` + s + `\u0000"}}`, true},
		{`{"enabled":true,"command":"c","env":"` + s + `","headers":"` + s + `"}`, true},
		{`{"enabled":true,"type":"sse","url":"https://u:` + s + `@h/x","env":{"A":"` + s + `"},"headers":["` + s + `"]}`, false},
		{`{"enabled":true,"url":"ftp://u:` + s + `@h/x"}`, false},
		{`{"enabled":true,"url":"https://u:` + s + `@h x:y/"}`, false},
		{`{"enabled":true,"command":"c","token":"` + s + `","nested":{"k":"` + s + `"}}`, true},
		{`{"enabled":true,"type":"custom","token":"` + s + `"}`, true},
	}
	for i, c := range configs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ld := mustLoad(t, LoadOptions{
				UserData: []byte(`{"tools":{"mcp":{"servers":{"s":` + c.json + `}}}}`), Home: "/h", SystemDir: t.TempDir(),
				Environ: []string{"PLUGHOST_TOOLS__MCP__SERVERS__S__ENV__E=" + s, "PLUGHOST_TOOLS__MCP__SERVERS__S__HEADERS=" + s},
				Sets:    []string{"tools.mcp.servers.s.env=" + s, "tools.mcp.servers.s.headers.H=[1]", "tools.mcp.servers.s.envv=" + s, "bad" + s},
			})
			p := ld.Validate(ValidateOptions{})
			if len(p.All()) == 0 {
				t.Fatal("expected problems")
			}
			for _, e := range p.All() {
				if strings.Contains(e.Error(), s) {
					t.Errorf("message shows the secret: %s", e)
				}
			}
			if !c.display {
				return
			}
			if b, _ := json.Marshal(ld.Config); strings.Contains(string(b), s) {
				t.Errorf("marshalled config shows the secret: %s", b)
			}
			if out := fmt.Sprintf("%v %+v %#v", ld.Config, ld.Config.MCP.Servers, ld.Config.MCP.Servers); strings.Contains(out, s) || strings.Contains(out, fmt.Sprint([]byte(s))[1:20]) {
				t.Errorf("formatted config shows the secret: %s", out)
			}
		})
	}
}

func TestValidateGateway(t *testing.T) {
	for _, c := range []struct {
		name string
		g    Gateway
		want []string // problem paths
	}{
		{"default", Gateway{Listen: "127.0.0.1:8765", Auth: true, TokenFile: "/t"}, nil},
		{"any interface with auth", Gateway{Listen: ":8765", Auth: true, TokenFile: "/t"}, nil},
		{"localhost without auth", Gateway{Listen: "localhost:0", Auth: false}, nil},
		{"ipv6 loopback without auth", Gateway{Listen: "[::1]:9000", Auth: false}, nil},
		{"public without auth", Gateway{Listen: "0.0.0.0:8765", Auth: false}, []string{"tools.mcp.gateway.listen"}},
		{"no port", Gateway{Listen: "127.0.0.1", Auth: true, TokenFile: "/t"}, []string{"tools.mcp.gateway.listen"}},
		{"bad port", Gateway{Listen: "127.0.0.1:http", Auth: true, TokenFile: "/t"}, []string{"tools.mcp.gateway.listen"}},
		{"port too large", Gateway{Listen: "127.0.0.1:70000", Auth: true, TokenFile: "/t"}, []string{"tools.mcp.gateway.listen"}},
		{"auth without token file", Gateway{Listen: "127.0.0.1:1", Auth: true}, []string{"tools.mcp.gateway.token_file"}},
		{"allowed origins", Gateway{Listen: "127.0.0.1:1", Auth: true, TokenFile: "/t",
			AllowedOrigins: []string{"http://localhost:6274", "https://app.example.com", "vscode-webview://abc"}}, nil},
		{"an allowed origin that is not scheme://host[:port]", Gateway{Listen: "127.0.0.1:1", Auth: true, TokenFile: "/t",
			AllowedOrigins: []string{"http://localhost:6274", "localhost:3000", "http://localhost:3000/app"}},
			[]string{"tools.mcp.gateway.allowed_origins[1]", "tools.mcp.gateway.allowed_origins[2]"}},
		{"limits must be positive", Gateway{Listen: "127.0.0.1:1", SessionIdleMinutes: -1, MaxRequestMB: -1, ReadTimeoutSeconds: -1, IdleTimeoutSeconds: -1, ShutdownSeconds: -1,
			DrainSeconds: -1},
			[]string{"tools.mcp.gateway.drain_seconds", "tools.mcp.gateway.idle_timeout_seconds", "tools.mcp.gateway.max_request_mb",
				"tools.mcp.gateway.read_timeout_seconds", "tools.mcp.gateway.session_idle_minutes", "tools.mcp.gateway.shutdown_seconds"}},
		{"a drain", Gateway{Listen: "127.0.0.1:1", Auth: true, TokenFile: "/t", DrainSeconds: 10}, nil},
		{"a drain of hours", Gateway{Listen: "127.0.0.1:1", Auth: true, TokenFile: "/t", DrainSeconds: 7200}, []string{"tools.mcp.gateway.drain_seconds"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Defaults()
			if err != nil {
				t.Fatal(err)
			}
			def := cfg.MCP.Gateway
			cfg.MCP.Gateway = c.g
			if c.g.SessionIdleMinutes == 0 { // the case is about listen, auth and token: default limits
				g := &cfg.MCP.Gateway
				g.SessionIdleMinutes, g.MaxRequestMB, g.ReadTimeoutSeconds = def.SessionIdleMinutes, def.MaxRequestMB, def.ReadTimeoutSeconds
				g.IdleTimeoutSeconds, g.ShutdownSeconds = def.IdleTimeoutSeconds, def.ShutdownSeconds
			}
			var got []string
			for _, pr := range Validate(cfg, ValidateOptions{}).All() {
				got = append(got, pr.Path)
			}
			sort.Strings(got)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("problem paths (-want +got):\n%s", diff)
			}
		})
	}
}

// tools.mcp.gateway.store: memory or redis, a Redis URL that parses, a
// prefix; problems name the path and never show the URL's password.
func TestValidateStore(t *testing.T) {
	redis := func(url, prefix string) Store {
		return Store{Type: StoreRedis, URL: secret.URL(url), Prefix: prefix}
	}
	for _, c := range []struct {
		name  string
		store Store
		want  string // problem path ("" for none)
		msg   string
	}{
		{"default", Store{}, "", ""},
		{"memory", Store{Type: "memory"}, "", ""},
		{"redis", redis("redis://:s3cretpw@redis:6379/0", "plughost:"), "", ""},
		{"rediss, user, no db", redis("rediss://plughost:s3cretpw@redis.example:6380", "p:"), "", ""},
		{"unknown type", Store{Type: "etcd"}, "tools.mcp.gateway.store.type", `must be "memory" or "redis", got "etcd"`},
		{"redis without url", redis("", "p:"), "tools.mcp.gateway.store.url", "is required"},
		{"memory with url", Store{Type: "memory", URL: "redis://h:1/0"}, "tools.mcp.gateway.store.url", `the store type is "memory"`},
		{"bad scheme", redis("http://:s3cretpw@redis:6379/0", "p:"), "tools.mcp.gateway.store.url", "the scheme must be redis://"},
		{"bad port", redis("redis://:s3cretpw@redis:x/0", "p:"), "tools.mcp.gateway.store.url", "redis://:****@redis:x/0"},
		{"port out of range", redis("redis://:s3cretpw@redis:70000/0", "p:"), "tools.mcp.gateway.store.url", "from 1 to 65535"},
		{"bad db", redis("redis://:s3cretpw@redis:6379/zero", "p:"), "tools.mcp.gateway.store.url", "database number"},
		{"no host", redis("redis://:s3cretpw@:6379/0", "p:"), "tools.mcp.gateway.store.url", "has no host"},
		{"empty prefix", redis("redis://redis:6379/0", " "), "tools.mcp.gateway.store.prefix", "must not be empty"},
	} {
		t.Run(c.name, func(t *testing.T) { wantStoreProblem(t, c.store, c.want, c.msg) })
	}
}

// wantStoreProblem validates the defaults with store as the gateway's session
// store: no problem when want is "", else exactly one, at path want, whose
// message holds msg; never one showing the test's password.
func wantStoreProblem(t *testing.T, store Store, want, msg string) {
	t.Helper()
	cfg, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCP.Gateway.TokenFile = "/t"
	cfg.MCP.Gateway.Store = store
	all := Validate(cfg, ValidateOptions{}).All()
	switch {
	case want == "" && len(all) > 0:
		t.Errorf("problems: %v", all)
	case want != "" && (len(all) != 1 || all[0].Path != want || !strings.Contains(all[0].Msg, msg)):
		t.Errorf("problems: %v, want one at %s containing %q", all, want, msg)
	}
	for _, p := range all {
		if strings.Contains(p.Error(), "s3cretpw") {
			t.Errorf("a problem shows the password: %v", p)
		}
	}
}

// The store is set like any key: by environment variable and --set, and
// the URL's password is masked when the config is shown and by the masker.
func TestStoreFromEnvironmentAndSet(t *testing.T) {
	dir := t.TempDir()
	l, err := Load(LoadOptions{UserFile: filepath.Join(dir, "c.json"), UserData: []byte(`{}`), SystemDir: filepath.Join(dir, "none"), Home: dir,
		Environ: []string{"PLUGHOST_TOOLS__MCP__GATEWAY__STORE__TYPE=redis", "PLUGHOST_TOOLS__MCP__GATEWAY__STORE__URL=redis://:envpassword1@redis:6379/2"},
		Sets:    []string{"tools.mcp.gateway.store.prefix=team-a:"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Validate(ValidateOptions{}); !p.Empty() {
		t.Fatalf("problems: %v", p.All())
	}
	s := l.Config.MCP.Gateway.Store
	if s.Kind() != StoreRedis || s.URL.Reveal() != "redis://:envpassword1@redis:6379/2" || s.Prefix != "team-a:" {
		t.Errorf("store from env and --set: %+v", s)
	}
	shown, _ := json.Marshal(l.Config)
	if strings.Contains(string(shown), "envpassword1") || !strings.Contains(string(shown), `redis://:****@redis:6379/2`) {
		t.Errorf("the shown config: %s", shown)
	}
	if m := NewMasker(l.Config, dir).Mask("dial redis with envpassword1 failed"); strings.Contains(m, "envpassword1") {
		t.Errorf("the masker lets the store password through: %s", m)
	}
}
