package jsonedit

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const pretty = `{
    "tools": {
        "mcp": {
            "enabled": false,
            "x-unknown": {"keep": [1e3, 10.50, 123456789012345678901234567890]},
            "servers": {
                "a": {"enabled": true, "command": "a"},
                "my.server": {
                    "enabled": true,
                    "command": "b"
                }
            }
        }
    },
    "zzz": "caf\u00e9"
}
`

func TestSet(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		keys  []string
		value any
		want  string
	}{
		{
			name: "new member indented like its siblings",
			in:   pretty, keys: []string{"tools", "mcp", "servers", "c.d"},
			value: map[string]any{"enabled": true, "args": []string{"-y", "<x>"}},
			want: `{
    "tools": {
        "mcp": {
            "enabled": false,
            "x-unknown": {"keep": [1e3, 10.50, 123456789012345678901234567890]},
            "servers": {
                "a": {"enabled": true, "command": "a"},
                "my.server": {
                    "enabled": true,
                    "command": "b"
                },
                "c.d": {
                    "args": [
                        "-y",
                        "<x>"
                    ],
                    "enabled": true
                }
            }
        }
    },
    "zzz": "caf\u00e9"
}
`,
		},
		{
			name: "replace a scalar in place, numbers and escapes untouched",
			in:   pretty, keys: []string{"tools", "mcp", "enabled"}, value: true,
			want: replaceOnce(pretty, `"enabled": false`, `"enabled": true`),
		},
		{
			name: "replace a dotted key's object",
			in:   pretty, keys: []string{"tools", "mcp", "servers", "my.server"},
			value: json.RawMessage(`{"enabled":false,"timeout":1.50}`),
			want: replaceOnce(pretty, `{
                    "enabled": true,
                    "command": "b"
                }`, `{
                    "enabled": false,
                    "timeout": 1.50
                }`),
		},
		{
			name: "missing objects are created",
			in:   `{"other": 1}`, keys: []string{"tools", "mcp", "enabled"}, value: true,
			want: `{"other": 1, "tools": {"mcp":{"enabled":true}}}`,
		},
		{
			name: "compact document stays compact",
			in:   `{"a":1,"b":{"c":2}}`, keys: []string{"b", "d"}, value: "é",
			want: `{"a":1,"b":{"c":2,"d":"é"}}`,
		},
		{
			name: "blank document gets a pretty skeleton",
			in:   "  \n", keys: []string{"tools", "mcp", "enabled"}, value: true,
			want: "{\n  \"tools\": {\n    \"mcp\": {\n      \"enabled\": true\n    }\n  }\n}\n",
		},
		{
			name: "empty nested object in a pretty document, tabs",
			in:   "{\n\t\"tools\": {\n\t\t\"mcp\": {}\n\t}\n}", keys: []string{"tools", "mcp", "servers"}, value: map[string]any{},
			want: "{\n\t\"tools\": {\n\t\t\"mcp\": {\n\t\t\t\"servers\": {}\n\t\t}\n\t}\n}",
		},
		{
			name: "odd whitespace is kept",
			in:   "{ \"a\" :1 ,\r\n  \"b\"  :  [ 1 ,2 ] }", keys: []string{"c"}, value: 3,
			want: "{ \"a\" :1 ,\r\n  \"b\"  :  [ 1 ,2 ], \"c\" :3 }",
		},
		{
			name: "repeated key: the last one is replaced",
			in:   `{"a":1,"a":2}`, keys: []string{"a"}, value: 3,
			want: `{"a":1,"a":3}`,
		},
		{
			name: "byte order mark kept",
			in:   "\xef\xbb\xbf{\"a\": 1}", keys: []string{"a"}, value: 2,
			want: "\xef\xbb\xbf{\"a\": 2}",
		},
		{
			name: "unicode key",
			in:   `{"s": {}}`, keys: []string{"s", "日本.語"}, value: 1,
			want: `{"s": {"日本.語":1}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Set([]byte(tt.in), tt.value, tt.keys...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Set (-want +got):\n%s", diff)
			}
			if !json.Valid(trimBOM(got)) {
				t.Errorf("result is not valid JSON:\n%s", got)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		keys  []string
		want  string
		found bool
	}{
		{
			name: "middle member", in: `{"a": 1, "b.c": 2, "c": 3}`, keys: []string{"b.c"},
			want: `{"a": 1, "c": 3}`, found: true,
		},
		{
			name: "last member of a pretty object",
			in:   "{\n  \"a\": 1,\n  \"b\": {\"x\": 1e3}\n}\n", keys: []string{"b"},
			want: "{\n  \"a\": 1\n}\n", found: true,
		},
		{
			name: "only member", in: "{\"s\": {\n  \"x\": 1\n}}", keys: []string{"s", "x"},
			want: `{"s": {}}`, found: true,
		},
		{
			name: "every occurrence of a repeated key", in: `{"a":1,"b":2,"a":3}`, keys: []string{"a"},
			want: `{"b":2}`, found: true,
		},
		{
			name: "missing key leaves the bytes alone", in: ` {"a":1} `, keys: []string{"x", "y"},
			want: ` {"a":1} `,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := Delete([]byte(tt.in), tt.keys...)
			if err != nil {
				t.Fatal(err)
			}
			if found != tt.found {
				t.Errorf("found = %v, want %v", found, tt.found)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Delete (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGetAndKeys(t *testing.T) {
	raw, ok, err := Get([]byte(pretty), "tools", "mcp", "x-unknown")
	if err != nil || !ok {
		t.Fatalf("Get: %v %v", ok, err)
	}
	if want := `{"keep": [1e3, 10.50, 123456789012345678901234567890]}`; string(raw) != want {
		t.Errorf("Get = %s, want %s", raw, want)
	}
	keys, err := Keys([]byte(pretty), "tools", "mcp", "servers")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "my.server"}, keys); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	if keys, err := Keys([]byte(pretty), "nope"); keys != nil || err != nil {
		t.Errorf("Keys of a missing object = %v, %v; want nil, nil", keys, err)
	}
	if _, ok, _ := Get([]byte(pretty), "tools", "mcp", "servers", "my"); ok {
		t.Error(`Get found "my" although only "my.server" exists`)
	}
}

func TestErrors(t *testing.T) {
	if _, err := Set([]byte(`{"a": `), 1, "a"); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid JSON: got %v, want ErrInvalid", err)
	}
	var noe *NotObjectError
	if _, err := Set([]byte(`{"tools": []}`), 1, "tools", "mcp"); !errors.As(err, &noe) {
		t.Errorf("through an array: got %v, want NotObjectError", err)
	}
	if _, err := Set([]byte(`[1]`), 1, "a"); !errors.As(err, &noe) {
		t.Errorf("array document: got %v, want NotObjectError", err)
	}
}

func FuzzSet(f *testing.F) {
	f.Add([]byte(pretty), "tools", "x.y")
	f.Add([]byte(`{"a":{"b":[1,{"c":"\""}]}}`), "a", "b")
	f.Add([]byte(`{}`), "", "")
	f.Fuzz(func(t *testing.T, data []byte, k1, k2 string) {
		out, err := Set(data, map[string]any{"v": 1}, k1, k2)
		if err != nil {
			return
		}
		if !json.Valid(trimBOM(out)) {
			t.Fatalf("Set produced invalid JSON from %q:\n%s", data, out)
		}
		if raw, ok, err := Get(out, k1, k2); err != nil || !ok || string(raw) == "" {
			t.Fatalf("value not found after Set: %v %v", ok, err)
		}
		del, found, err := Delete(out, k1, k2)
		if err != nil || !found || !json.Valid(trimBOM(del)) {
			t.Fatalf("Delete after Set: %v %v\n%s", found, err, del)
		}
	})
}

func replaceOnce(s, old, new string) string {
	i := len(s)
	for j := 0; j+len(old) <= len(s); j++ {
		if s[j:j+len(old)] == old {
			i = j
			break
		}
	}
	if i == len(s) {
		panic("replaceOnce: not found: " + old)
	}
	return s[:i] + new + s[i+len(old):]
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && string(b[:3]) == bom {
		return b[3:]
	}
	return b
}
