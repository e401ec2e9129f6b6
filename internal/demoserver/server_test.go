package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// sleepBound is how long a cancelled sleep may take to return; generous so a
// loaded CI machine cannot make the test flaky.
const sleepBound = 30 * time.Second

func newInProcessClient(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(New("test"), client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	return c
}

func initialize(t *testing.T, c *client.Client) *mcp.InitializeResult {
	t.Helper()
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start: %v", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	req.Params.ClientInfo = mcp.Implementation{Name: "demoserver-test", Version: "0"}
	res, err := c.Initialize(t.Context(), req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

func call(ctx context.Context, t *testing.T, c *client.Client, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s(%v): %v", tool, args, err)
	}
	return res
}

func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, content := range res.Content {
		tc, ok := mcp.AsTextContent(content)
		if !ok {
			t.Fatalf("content %T is not text", content)
		}
		parts = append(parts, tc.Text)
	}
	return strings.Join(parts, "")
}

func TestListTools(t *testing.T) {
	c := newInProcessClient(t)
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	required := map[string][]string{}
	for _, tool := range res.Tools {
		required[tool.Name] = tool.InputSchema.Required
		if len(tool.Description) < 40 {
			t.Errorf("tool %s: description too thin: %q", tool.Name, tool.Description)
		}
		if tool.InputSchema.Type != "object" {
			t.Errorf("tool %s: input schema type %q", tool.Name, tool.InputSchema.Type)
		}
		for name, prop := range tool.InputSchema.Properties {
			p, _ := prop.(map[string]any)
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("tool %s: parameter %s has no description", tool.Name, name)
			}
		}
	}
	want := map[string][]string{
		"calculate":     {"expression"},
		"current_time":  {},
		"echo":          {"text"},
		"generate_text": {"chars"},
		"hash":          {"text"},
		"sleep":         {"seconds"},
		"text_stats":    {"text"},
	}
	if diff := cmp.Diff(want, required); diff != "" {
		t.Errorf("tools and required parameters (-want +got):\n%s", diff)
	}
}

func TestCallTools(t *testing.T) {
	c := newInProcessClient(t)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string // exact text, unless check is set
		check   func(t *testing.T, text string)
		wantErr bool // result with isError
	}{
		{name: "echo", tool: "echo", args: map[string]any{"text": "héllo\nworld"}, want: "héllo\nworld"},
		{name: "echo empty", tool: "echo", args: map[string]any{"text": ""}, want: ""},
		{name: "echo missing text", tool: "echo", args: map[string]any{}, wantErr: true,
			want: `invalid arguments for echo: missing property 'text'`},
		{name: "echo unknown parameter", tool: "echo", args: map[string]any{"text": "x", "loud": true}, wantErr: true,
			want: `invalid arguments for echo: additional properties 'loud' not allowed`},
		{name: "echo wrong type", tool: "echo", args: map[string]any{"text": 5}, wantErr: true,
			want: `invalid arguments for echo: at /text: got number, want string`},
		{name: "calculate", tool: "calculate", args: map[string]any{"expression": "(2 + 3) * 4 ^ 2 / sqrt(16)"}, want: "20"},
		{name: "calculate fraction", tool: "calculate", args: map[string]any{"expression": "1 / 8"}, want: "0.125"},
		{
			name: "calculate division by zero", tool: "calculate", args: map[string]any{"expression": "1 / (2 - 2)"},
			want: "cannot evaluate: at position 3: division by zero\n  1 / (2 - 2)\n    ^", wantErr: true,
		},
		{
			name: "calculate syntax error", tool: "calculate", args: map[string]any{"expression": "2 * (3 + 4"},
			check: func(t *testing.T, text string) {
				if !strings.Contains(text, `at position 11: expected ")"`) {
					t.Errorf("message %q does not point at the missing parenthesis", text)
				}
			},
			wantErr: true,
		},
		{
			name: "current_time default", tool: "current_time", args: map[string]any{},
			check: checkTimeNear(time.RFC3339, "Z"),
		},
		{
			name: "current_time zone", tool: "current_time", args: map[string]any{"timezone": "Asia/Kolkata"},
			check: checkTimeNear(time.RFC3339, "+05:30"),
		},
		{
			name: "current_time unix", tool: "current_time", args: map[string]any{"format": "unix"},
			check: func(t *testing.T, text string) {
				sec, err := strconv.ParseInt(text, 10, 64)
				if err != nil || time.Since(time.Unix(sec, 0)).Abs() > time.Minute {
					t.Errorf("unix time %q is not now", text)
				}
			},
		},
		{
			name: "current_time human", tool: "current_time", args: map[string]any{"timezone": "UTC", "format": "human"},
			check: checkTimeNear(humanLayout, "UTC (UTC+00:00)"),
		},
		{name: "current_time unknown zone", tool: "current_time", args: map[string]any{"timezone": "Mars/Olympus_Mons"}, wantErr: true},
		{name: "current_time bad format", tool: "current_time", args: map[string]any{"format": "iso"}, wantErr: true},
		{
			name: "text_stats", tool: "text_stats", args: map[string]any{"text": "To be, or not to be.\nThat is the question."},
			check: func(t *testing.T, text string) {
				var got textStats
				if err := json.Unmarshal([]byte(text), &got); err != nil {
					t.Fatalf("result %q is not JSON: %v", text, err)
				}
				want := textStats{Chars: 42, Bytes: 42, Words: 10, UniqueWords: 8, Lines: 2, Sentences: 2,
					TopWords: []wordCount{{"be", 2}, {"to", 2}, {"is", 1}, {"not", 1}, {"or", 1}}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("text_stats (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "generate_text", tool: "generate_text", args: map[string]any{"chars": 1234, "seed": 9},
			want: generateText(1234, 9),
		},
		{name: "generate_text too large", tool: "generate_text", args: map[string]any{"chars": maxGeneratedChars + 1}, wantErr: true},
		{name: "generate_text zero", tool: "generate_text", args: map[string]any{"chars": 0}, wantErr: true},
		{name: "generate_text fractional", tool: "generate_text", args: map[string]any{"chars": 1.5}, wantErr: true,
			want: `invalid arguments for generate_text: at /chars: got number, want integer`},
		{name: "sleep zero", tool: "sleep", args: map[string]any{"seconds": 0}, check: checkSlept(0)},
		{name: "sleep short", tool: "sleep", args: map[string]any{"seconds": 0.01}, check: checkSlept(10 * time.Millisecond)},
		{name: "sleep negative", tool: "sleep", args: map[string]any{"seconds": -1}, wantErr: true},
		{name: "sleep too long", tool: "sleep", args: map[string]any{"seconds": 3601}, wantErr: true},
		{
			name: "hash default sha256", tool: "hash", args: map[string]any{"text": "abc"},
			want: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		},
		{name: "hash md5", tool: "hash", args: map[string]any{"text": "abc", "algorithm": "md5"}, want: "900150983cd24fb0d6963f7d28e17f72"},
		{name: "hash sha1", tool: "hash", args: map[string]any{"text": "", "algorithm": "sha1"}, want: "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{name: "hash unknown algorithm", tool: "hash", args: map[string]any{"text": "abc", "algorithm": "crc32"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t.Context(), t, c, tt.tool, tt.args)
			text := resultText(t, res)
			if res.IsError != tt.wantErr {
				t.Fatalf("isError = %v, want %v (text %q)", res.IsError, tt.wantErr, text)
			}
			switch {
			case tt.check != nil:
				tt.check(t, text)
			case tt.want != "" || !tt.wantErr:
				if text != tt.want {
					t.Errorf("text = %q, want %q", text, tt.want)
				}
			case text == "":
				t.Error("error result has no message")
			}
			if strings.Contains(text, "&{") {
				t.Errorf("the message shows a Go value: %q", text)
			}
		})
	}
}

// checkSlept checks that text reports a sleep of at least min.
func checkSlept(min time.Duration) func(t *testing.T, text string) {
	return func(t *testing.T, text string) {
		t.Helper()
		d, err := time.ParseDuration(strings.TrimPrefix(text, "slept "))
		if !strings.HasPrefix(text, "slept ") || err != nil || d < min {
			t.Errorf("sleep reported %q, want \"slept\" and at least %s", text, min)
		}
	}
}

// checkTimeNear checks that text is the current time in layout and ends
// with suffix (the zone).
func checkTimeNear(layout, suffix string) func(t *testing.T, text string) {
	return func(t *testing.T, text string) {
		t.Helper()
		got, err := time.Parse(layout, text)
		if err != nil {
			t.Fatalf("%q does not parse as %q: %v", text, layout, err)
		}
		if d := time.Since(got).Abs(); d > time.Minute {
			t.Errorf("%q is %s away from now", text, d)
		}
		if !strings.HasSuffix(text, suffix) {
			t.Errorf("%q does not end with %q", text, suffix)
		}
	}
}

func TestTextStatsStructuredContent(t *testing.T) {
	c := newInProcessClient(t)
	res := call(t.Context(), t, c, "text_stats", map[string]any{"text": "a a b"})
	if res.StructuredContent == nil {
		t.Fatal("text_stats result has no structuredContent")
	}
	tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools.Tools, func(tool mcp.Tool) bool { return tool.Name == "text_stats" })
	if props := tools.Tools[i].OutputSchema.Properties; props["top_words"] == nil || props["chars"] == nil {
		t.Errorf("text_stats output schema lacks properties: %v", props)
	}
}

func TestSleepCancellation(t *testing.T) {
	c := newInProcessClient(t)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := call(ctx, t, c, "sleep", map[string]any{"seconds": 3600})
	if elapsed := time.Since(start); elapsed > sleepBound {
		t.Errorf("cancelled sleep returned after %s", elapsed)
	}
	text := resultText(t, res)
	if !res.IsError || !strings.Contains(text, context.DeadlineExceeded.Error()) {
		t.Errorf("cancelled sleep: isError %v, text %q; want an error naming %q", res.IsError, text, context.DeadlineExceeded)
	}
}

func TestSleepHandlerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := sleep(ctx, mcp.CallToolRequest{}, sleepArgs{Seconds: 3600})
		done <- res
	}()
	cancel()
	select {
	case res := <-done:
		if !res.IsError || !strings.Contains(resultText(t, res), context.Canceled.Error()) {
			t.Errorf("cancelled sleep result: %+v", res)
		}
	case <-time.After(sleepBound):
		t.Fatal("sleep did not return after cancellation")
	}
}

// TestServeStdio runs the server over pipes the way a host runs it as a
// subprocess, and checks that it stops when its input closes or ctx ends.
func TestServeStdio(t *testing.T) {
	for _, stop := range []string{"eof", "cancel"} {
		t.Run(stop, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			serverIn, clientOut := io.Pipe()
			clientIn, serverOut := io.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- ServeStdio(ctx, serverIn, serverOut, "1.2.3")
				serverOut.Close()
			}()

			c := client.NewClient(transport.NewIO(clientIn, clientOut, nil), client.WithProtocolVersion(mcp.ProtocolVersion20251125))
			res := initialize(t, c)
			if res.ServerInfo.Name != Name || res.ServerInfo.Version != "1.2.3" {
				t.Errorf("server info = %+v", res.ServerInfo)
			}
			if got := resultText(t, call(t.Context(), t, c, "echo", map[string]any{"text": "over stdio"})); got != "over stdio" {
				t.Errorf("echo = %q", got)
			}

			want := error(nil)
			if stop == "eof" {
				clientOut.Close()
			} else {
				cancel()
				want = context.Canceled
			}
			select {
			case err := <-served:
				if !errors.Is(err, want) {
					t.Errorf("ServeStdio returned %v, want %v", err, want)
				}
			case <-time.After(sleepBound):
				t.Fatal("ServeStdio did not return")
			}
		})
	}
}
