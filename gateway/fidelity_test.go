package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/internal/testbin"
)

// The tool definitions of the npm reference servers reach a client of the
// gateway exactly as the servers list them — every member in the same
// order with the same bytes ($schema, anyOf, titles, outputSchema,
// annotations, execution …) and nothing added — except the name.
func TestDefinitionsAreFaithful(t *testing.T) {
	integration(t)
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	filesystem, err := testbin.NPMServer("@modelcontextprotocol/server-filesystem", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	root := t.TempDir()
	argv := map[string][]string{"everything": {everything, "stdio"}, "fs": {filesystem, root}}
	h := startHost(t, map[string]any{
		"everything": map[string]any{"enabled": true, "command": "node", "args": argv["everything"]},
		"fs":         map[string]any{"enabled": true, "command": "node", "args": argv["fs"]},
	}, nil)
	through := map[string]json.RawMessage{}
	for _, def := range listTools(t, func(in io.Reader, out io.Writer) func() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { gateway.New(h, gateway.Options{}).ServeStdio(ctx, in, out); close(done) }()
		return func() { cancel(); <-done }
	}) {
		through[memberString(t, def, "name")] = def
	}
	for server, args := range argv {
		direct := listTools(t, func(in io.Reader, out io.Writer) func() {
			cmd := exec.Command("node", args...)
			cmd.Stdin, cmd.Stdout = in, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			return func() { cmd.Process.Kill(); cmd.Wait() }
		})
		if len(direct) < 5 {
			t.Fatalf("%s lists only %d tools", server, len(direct))
		}
		names := map[string]string{}
		for _, tl := range h.Registry().Server(server) {
			names[tl.ServerTool] = tl.Name
		}
		for _, def := range direct {
			name := memberString(t, def, "name")
			got, ok := through[names[name]]
			if !ok {
				t.Errorf("%s: tool %s (%s) not served by the gateway", server, name, names[name])
				continue
			}
			want, have := members(t, def), members(t, got)
			for i := range want {
				if want[i].key == "name" { // the one change
					want[i].value = json.RawMessage(fmt.Sprintf("%q", names[name]))
				}
			}
			if diff := cmp.Diff(want, have, cmp.AllowUnexported(member{})); diff != "" {
				t.Errorf("%s: %s differs beyond its name (-direct +gateway):\n%s", server, name, diff)
			}
		}
	}
}

// listTools runs initialize and every page of tools/list against a server
// started by start (which wires its stdin and stdout and returns how to stop
// it) and returns the raw tool definitions.
func listTools(t *testing.T, start func(in io.Reader, out io.Writer) (stop func())) []json.RawMessage {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stop := start(inR, outW)
	defer func() { inW.Close(); outW.Close(); stop() }()
	lines := bufio.NewReaderSize(outR, 1<<20)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func(id int) json.RawMessage {
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading answers: %v", err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
				if m.Error != nil {
					t.Fatalf("request %d: %s", id, m.Error)
				}
				return m.Result
			}
		}
		t.Fatalf("no answer to request %d", id)
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fidelity","version":"1"}}}`)
	recv(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var all []json.RawMessage
	cursor := ""
	for id := 2; ; id++ {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(recv(id), &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			return all
		}
	}
}

// member is one top-level member of a JSON object: key and raw value.
type member struct {
	key   string
	value json.RawMessage
}

// members lists an object's top-level members in order, values as bytes.
func members(t *testing.T, obj json.RawMessage) []member {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []member
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{k.(string), v})
	}
	return out
}

func memberString(t *testing.T, obj json.RawMessage, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	var s string
	if err := json.Unmarshal(obj, &m); err != nil || json.Unmarshal(m[key], &s) != nil {
		t.Fatalf("no string %q in %s", key, obj)
	}
	return s
}

func loudSkip(t *testing.T, err error) {
	t.Helper()
	fmt.Fprintf(os.Stderr, "\n*** SKIP %s: npm reference server unavailable: %v ***\n\n", t.Name(), err)
	t.Skipf("npm reference server unavailable: %v", err)
}
