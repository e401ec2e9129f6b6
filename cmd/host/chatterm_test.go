//go:build unix

package main_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/plughost/plughost/internal/fakeopenai"
)

// screen collects what a program writes to its terminal.
type screen struct {
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{} // closed and replaced on every write
	done    chan struct{} // closed when the terminal closes
}

func newScreen(r io.Reader) *screen {
	s := &screen{changed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			s.mu.Lock()
			s.text.Write(buf[:n])
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// waitFor waits until the screen shows want n times in all.
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		s.mu.Lock()
		text, changed := s.text.String(), s.changed
		s.mu.Unlock()
		if strings.Count(text, want) >= n {
			return
		}
		select {
		case <-changed:
		case <-s.done:
			t.Fatalf("the terminal closed before showing %q:\n%s", want, text)
		case <-deadline:
			t.Fatalf("the terminal never showed %q (×%d):\n%s", want, n, text)
		}
	}
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.String()
}

// TestChatTerminal drives the interactive mode on a pseudo-terminal as a
// person would: line editing, the slash commands, a streamed answer,
// Ctrl-C during a tool call (cancelled, the chat goes on), history, and a
// double Ctrl-C to leave.
func TestChatTerminal(t *testing.T) {
	c := newCLI(t)
	c.writeUserConfig(t, map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true, "servers": map[string]any{"test": testserver("-faithful")}}}})
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
		func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Text: "Hi there, I am scripted."} },
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call("h", "mcp_test_hold", map[string]any{})}}
		},
		func(r fakeopenai.Request) fakeopenai.Reply {
			if res, _ := r.ToolResult("h"); !strings.Contains(res, "cancelled") {
				t.Errorf("the cancelled call reached the model as %q", res)
			}
			return fakeopenai.Reply{Text: "Back again."}
		})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := c.command(ctx, "chat", "--base-url", srv.URL, "--model", "scripted", "--no-transcript")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 250})
	if err != nil {
		t.Skipf("SKIPPED LOUDLY: no pseudo-terminal here, the interactive mode is untested: %v", err)
	}
	defer tty.Close()
	s := newScreen(tty)
	typ := func(keys string) {
		if _, err := tty.Write([]byte(keys)); err != nil {
			t.Fatalf("type %q: %v", keys, err)
		}
	}
	prompts := 0
	prompt := func() { // wait for the next prompt before typing on
		prompts++
		s.waitFor(t, "> ", prompts)
	}
	s.waitFor(t, "/help lists the commands", 1)
	prompt()

	typ("/serverx\x7fs\r") // a typo, backspace, the fix
	s.waitFor(t, "SERVER", 1)
	s.waitFor(t, "connected", 1)
	prompt()
	typ("/tools\r")
	s.waitFor(t, "mcp_test_hold", 1)
	prompt()

	typ("hello\r")
	s.waitFor(t, "Hi there, I am scripted.\r\n", 1)
	prompt()

	typ("hold it\r")
	s.waitFor(t, "… mcp_test_hold 0 holding", 1) // the server holds the call
	typ("\x03")                                  // Ctrl-C: cancel the call
	s.waitFor(t, "cancelled", 1)
	s.waitFor(t, "(Ctrl-C again to exit)", 1)
	prompt()

	typ("again\r") // a line resets the Ctrl-C
	s.waitFor(t, "Back again.", 1)
	prompt()

	saved := filepath.Join(c.home, "conversation.md")
	typ("/save " + saved + "\r")
	s.waitFor(t, "Saved the conversation", 1)
	prompt()
	typ("\x1b[A\r") // up: the last line again
	s.waitFor(t, "Saved the conversation", 2)
	prompt()
	typ("/clear\r")
	s.waitFor(t, "The conversation was cleared; nothing is unlocked.", 1)
	prompt()

	typ("\x03\x03") // two quick presses, read as one chunk: exit
	werr := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(werr, &ee) || werr != nil {
		t.Fatalf("plughost chat ended with %v:\n%s", werr, s)
	}
	t.Logf("the terminal showed:\n%s", s)
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## user\n\nhello", "Hi there, I am scripted.", "calls `mcp_test_hold`", "cancelled", "Back again."} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the saved conversation lacks %q:\n%s", want, b)
		}
	}
}
