package chat

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/lib/termsafe"
)

// Terminal shows events to a person: streamed text as it comes, one line
// per tool call, result, progress step, unlock, usage and context change.
// Every text is masked and its control characters written out
// (termsafe.Text: a model or a server must not drive the terminal). Safe
// for concurrent use.
type Terminal struct {
	mu     sync.Mutex
	w      io.Writer
	masker *secret.Masker
	// Deltas shows streamed text; without it, each round's text is
	// shown whole (or not at all with Quiet).
	deltas bool
	// quiet leaves out the model's text and the answer (the one-shot
	// mode prints the answer itself).
	quiet bool
	// midLine: the last thing written was a delta without a newline.
	midLine  bool
	streamed bool // this round's text was shown as deltas
}

var _ Observer = (*Terminal)(nil)

// NewTerminal shows the whole conversation on w: the model's text as it
// streams, and the activity.
func NewTerminal(w io.Writer, m *secret.Masker) *Terminal {
	return &Terminal{w: w, masker: m, deltas: true}
}

// NewActivity shows only the activity on w (tool calls, results,
// progress, unlocks, usage, context), not the model's text nor the
// error that ends the chat (the caller reports it).
func NewActivity(w io.Writer, m *secret.Masker) *Terminal {
	return &Terminal{w: w, masker: m, quiet: true}
}

// Observe shows e.
func (t *Terminal) Observe(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.Type == EventDelta {
		if t.deltas {
			t.write(t.clean(e.Text))
			t.midLine = !strings.HasSuffix(e.Text, "\n")
			t.streamed = true
		}
		return
	}
	t.newline()
	if line := t.line(e); line != "" {
		t.write(line + "\n")
	}
}

// line is e as one line ("" for nothing to show).
func (t *Terminal) line(e Event) string {
	switch e.Type {
	case EventText:
		if t.quiet || t.streamed {
			t.streamed = false
			return ""
		}
		return t.clean(e.Text)
	case EventAnswer, EventUser, EventClear:
		t.streamed = false
		return ""
	case EventToolCall:
		return fmt.Sprintf("  → %s %s", t.clean(e.Name), t.clean(shorten(string(e.Arguments), 160)))
	case EventToolResult:
		return t.resultLine(e)
	case EventProgress:
		return t.progressLine(e)
	case EventLog:
		return fmt.Sprintf("  [%s %s] %s", t.clean(e.Server), t.clean(e.Level), t.clean(shorten(e.Text, 200)))
	case EventUnlock:
		return fmt.Sprintf("  unlocked for %d rounds: %s", e.Turns, t.clean(strings.Join(e.Tools, ", ")))
	case EventUsage:
		return fmt.Sprintf("  [tokens: %d in, %d out]", e.Usage.PromptTokens, e.Usage.CompletionTokens)
	case EventContext:
		what := "old tool results summarised"
		if e.Action == "dropped" {
			what = "oldest messages dropped"
		}
		return fmt.Sprintf("  [context: %d %s to fit the budget, ≈%d → %d tokens]", e.Messages, what, e.Before, e.After)
	case EventCancelled:
		return "cancelled"
	case EventError:
		if t.quiet { // the one-shot command reports its error itself
			return ""
		}
		return "error: " + t.clean(e.Error)
	}
	return ""
}

func (t *Terminal) resultLine(e Event) string {
	mark := "←"
	if e.IsError {
		mark = "✗"
	}
	s := fmt.Sprintf("  %s %s (%d chars) %s", mark, t.clean(e.Name), e.Chars, t.clean(shorten(e.Summary, 120)))
	if e.Artifact != "" {
		s += " [saved: " + t.clean(e.Artifact) + "]"
	}
	return s
}

func (t *Terminal) progressLine(e Event) string {
	s := "  … " + t.clean(e.Name)
	if e.Total > 0 {
		s += fmt.Sprintf(" %g/%g", e.Progress, e.Total)
	} else {
		s += fmt.Sprintf(" %g", e.Progress)
	}
	if e.Text != "" {
		s += " " + t.clean(e.Text)
	}
	return s
}

func (t *Terminal) newline() {
	if t.midLine {
		t.write("\n")
		t.midLine = false
	}
}

func (t *Terminal) write(s string) { _, _ = io.WriteString(t.w, s) }

// clean masks s and neutralises its control characters.
func (t *Terminal) clean(s string) string { return termsafe.Text(t.masker.Mask(s)) }

// shorten cuts s to n characters.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// WriteAnswer writes the model's final answer to w, masked and with its
// control characters neutralised, ending with a newline.
func WriteAnswer(w io.Writer, m *secret.Masker, answer string) {
	s := termsafe.Text(m.Mask(answer))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, _ = io.WriteString(w, s)
}
