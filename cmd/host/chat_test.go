//go:build unix

package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plughost/plughost/internal/fakeopenai"
)

// chatKey is the API key the chat tests use; it must never be shown.
const chatKey = "sk-chat-test-4b1d0c9e8f7a"

// chatEvent is the part of a JSON event the tests read.
type chatEvent struct {
	Type      string          `json:"type"`
	Round     int             `json:"round"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	IsError   bool            `json:"is_error"`
	Artifact  string          `json:"artifact"`
	Tools     []string        `json:"tools"`
	Turns     int             `json:"turns"`
	Error     string          `json:"error"`
	Usage     *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// parseEvents reads JSON lines, failing on a line that is not one event.
func parseEvents(t *testing.T, text string) []chatEvent {
	t.Helper()
	var out []chatEvent
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e chatEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Type == "" {
			t.Fatalf("not a JSON event: %q (%v)", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func types(events []chatEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}

// chatSetup writes a config with the test server (discovery on) and
// returns the CLI and the transcript directory.
func chatSetup(t *testing.T) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	c.writeUserConfig(t, map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true, "discovery": map[string]any{"enabled": true, "ttl": 3},
		"max_inline_text_chars": 256,
		"servers":               map[string]any{"test": testserver("-faithful")}}}})
	return c, filepath.Join(c.home, "chats")
}

// searchThenEcho is a model that finds echo, calls it and answers.
func searchThenEcho() []fakeopenai.Step {
	return []fakeopenai.Step{
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
				fakeopenai.Call("s", "tool_search_tool_bm25", map[string]any{"query": "return text unchanged"})}}
		},
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Text: "Echoing.", ToolCalls: []fakeopenai.ToolCall{
				fakeopenai.Call("e", "mcp_test_echo", map[string]any{"text": strings.Repeat("many words ", 100)})},
				Usage: &fakeopenai.Usage{PromptTokens: 400, CompletionTokens: 20, TotalTokens: 420}}
		},
		func(r fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Text: "The echo came back.", Usage: &fakeopenai.Usage{PromptTokens: 500, CompletionTokens: 5, TotalTokens: 505}}
		},
	}
}

// TestChatOneShotJSON: `chat -p --json` prints one event per line — user,
// tool calls, results, the unlock, usage, text, the answer — writes the
// same to the transcript, and never shows the key.
func TestChatOneShotJSON(t *testing.T) {
	c, chats := chatSetup(t)
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true, Key: chatKey}, searchThenEcho()...)
	r := c.runWith(t, []string{"CHAT_KEY=" + chatKey}, "chat", "-p", "echo many words", "--json",
		"--base-url", srv.URL, "--model", "scripted", "--api-key-env", "CHAT_KEY", "--transcript", chats)
	if r.code != 0 {
		t.Fatalf("chat -p failed:\n%s", r)
	}
	ev := parseEvents(t, r.stdout)
	want := []string{"user", "tool_call", "tool_result", "unlock", "usage", "text", "tool_call", "tool_result", "usage", "text", "answer"}
	if got := types(ev); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("event types = %v, want %v", got, want)
	}
	for _, e := range ev {
		switch e.Type {
		case "unlock":
			if !contains(e.Tools, "mcp_test_echo") || e.Turns != 3 {
				t.Errorf("unlock event %+v", e)
			}
		case "tool_result":
			if e.Name == "mcp_test_echo" && e.Artifact == "" {
				t.Errorf("the bounded echo result names no artifact: %+v", e)
			}
		case "answer":
			if e.Text != "The echo came back." {
				t.Errorf("answer %q", e.Text)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(chats, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %v, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := types(parseEvents(t, string(b))); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("transcript event types = %v", got)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v, want 0600", fi.Mode().Perm())
	}
	noKey(t, r, string(b))
	if req := srv.Requests(); len(req) != 3 || req[0].Authorization != "Bearer "+chatKey {
		t.Errorf("the endpoint got %d requests, the first with Authorization %q", len(req), req[0].Authorization)
	}
}

// TestChatOneShotText: without --json the answer alone is on stdout, the
// activity on stderr, for an endpoint that does not stream; the chat
// section of the config stands in for the flags.
func TestChatOneShotText(t *testing.T) {
	c, _ := chatSetup(t)
	srv := fakeopenai.Start(t, fakeopenai.Options{Key: chatKey}, searchThenEcho()...)
	cfg := map[string]any{}
	b, _ := os.ReadFile(c.userConfig())
	json.Unmarshal(b, &cfg)
	cfg["chat"] = map[string]any{"base_url": srv.URL, "model": "scripted", "api_key_env": "CHAT_KEY"}
	c.writeUserConfig(t, cfg)
	r := c.runWith(t, []string{"CHAT_KEY=" + chatKey}, "chat", "-p", "echo many words", "--no-transcript")
	if r.code != 0 || r.stdout != "The echo came back.\n" {
		t.Fatalf("want only the answer on stdout:\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "→ tool_search_tool_bm25", "unlocked for 3 rounds: ", "mcp_test_echo, ", "← mcp_test_echo", "[saved: ", "[tokens: 400 in, 20 out]")
	noKey(t, r, "")
}

// TestChatErrors: a failed chat exits non-zero with a clear reason, and
// the key stays hidden even where the endpoint quotes it back.
func TestChatErrors(t *testing.T) {
	c, chats := chatSetup(t)
	loop := fakeopenai.Start(t, fakeopenai.Options{Stream: true, RepeatLast: true}, func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call("", "mcp_test_noop", map[string]any{})}}
	})
	echoKey := fakeopenai.Start(t, fakeopenai.Options{Key: "sk-another-key-0000", EchoAuthorization: true})
	models := fakeopenai.Start(t, fakeopenai.Options{Models: []string{"llama3.2"}})
	escapes := fakeopenai.Start(t, fakeopenai.Options{}, func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Status: 500, Body: `{"error": {"message": "boom \u001b]0;pwned\u0007 \u009b2J"}}`}
	})
	for name, tc := range map[string]struct {
		args []string
		code int
		says []string
	}{
		"unreachable":         {[]string{"--base-url", "http://127.0.0.1:1/v1", "--model", "m"}, 1, []string{"cannot reach the model endpoint http://127.0.0.1:1/v1"}},
		"key refused":         {[]string{"--base-url", echoKey.URL, "--model", "m", "--api-key-env", "CHAT_KEY"}, 1, []string{"HTTP 401", "Authorization: Bearer ****", "check the API key in $CHAT_KEY"}},
		"model not found":     {[]string{"--base-url", models.URL, "--model", "nope"}, 1, []string{`model "nope" not found`, "it serves: llama3.2"}},
		"loops":               {[]string{"--base-url", loop.URL, "--model", "m", "--max-turns", "2"}, 1, []string{"still calling tools after 2 rounds", "--max-turns"}},
		"no model":            {[]string{"--base-url", loop.URL}, 2, []string{"no model: pass --model"}},
		"key on the line":     {[]string{"--model", "m", "--api-key-env", chatKey}, 2, []string{"NAME of an environment variable"}},
		"unset key":           {[]string{"--model", "m", "--api-key-env", "NOT_SET_ANYWHERE"}, 1, []string{"$NOT_SET_ANYWHERE", "unset or empty"}},
		"json without -p":     {[]string{"--model", "m", "--json"}, 2, []string{"--json goes with -p"}},
		"escapes in an error": {[]string{"--base-url", escapes.URL, "--model", "m"}, 1, []string{`HTTP 500: boom \x1b]0;pwned\a \u009b2J`}},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"chat", "-p", "hi", "--transcript", chats}, tc.args...)
			if name == "json without -p" {
				args = append([]string{"chat"}, tc.args...)
			}
			r := c.runWith(t, []string{"CHAT_KEY=" + chatKey}, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", r.code, tc.code, r)
			}
			wantContains(t, "stderr", r.stderr, tc.says...)
			if strings.ContainsAny(r.stderr, "\x1b\a\u009b") {
				t.Errorf("stderr carries raw control characters: %q", r.stderr)
			}
			noKey(t, r, transcripts(t, chats))
		})
	}
}

// transcripts returns the text of every transcript in dir.
func transcripts(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// noKey fails the test if the key shows in r or in extra.
func noKey(t *testing.T, r result, extra string) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, chatKey) {
		t.Errorf("the output shows the API key:\n%s", r)
	}
	if strings.Contains(extra, chatKey) {
		t.Errorf("the transcript shows the API key:\n%s", extra)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
