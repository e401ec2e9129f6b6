package chat

import (
	"encoding/json"
	"fmt"
)

// The context budget is counted in estimated tokens: about 4 bytes of
// text each, plus a few per message for the roles and separators. An
// estimate needs no tokenizer, works for every model, and errs on the
// generous side for English text.
const (
	bytesPerToken   = 4
	tokensPerMsg    = 4
	summaryKeepRune = 200
)

// estimate returns the estimated tokens of a request.
func estimate(msgs []Message, tools []Tool) int {
	n := 0
	for _, m := range msgs {
		n += tokensPerMsg + len(m.Content)/bytesPerToken
		for _, c := range m.ToolCalls {
			n += (len(c.Function.Name) + len(c.Function.Arguments)) / bytesPerToken
		}
	}
	if b, err := json.Marshal(tools); err == nil {
		n += len(b) / bytesPerToken
	}
	return n
}

// fit keeps the next request within the budget: first the oldest tool
// results are summarised (their start, size and saved file kept) — all but
// those of the last round, which the model has not read yet — then the
// oldest exchanges (a user message and all that answered it) are dropped
// whole, never the current one. Each step is reported as a context event.
func (a *Agent) fit(round int, tools []Tool) {
	budget := a.opts.ContextTokens
	before := estimate(a.msgs, tools)
	if before <= budget {
		return
	}
	unread := a.lastAssistant()
	n := 0
	for i := 1; i < unread && estimate(a.msgs, tools) > budget; i++ {
		if m := &a.msgs[i]; m.Role == "tool" && !m.summarised {
			m.Content, m.summarised = summaryOf(m.Content), true
			n++
		}
	}
	if n > 0 {
		after := estimate(a.msgs, tools)
		a.obs.Observe(Event{Type: EventContext, Round: round, Action: "summarised", Messages: n, Before: before, After: after})
		before = after
	}
	dropped := 0
	for estimate(a.msgs, tools) > budget && a.currentExchange() > 1 {
		end := a.nextExchange(1)
		dropped += end - 1
		a.msgs = append(a.msgs[:1], a.msgs[end:]...)
	}
	if dropped > 0 {
		a.obs.Observe(Event{Type: EventContext, Round: round, Action: "dropped", Messages: dropped, Before: before, After: estimate(a.msgs, tools)})
	}
}

// currentExchange is the index of the last user message.
func (a *Agent) currentExchange() int {
	for i := len(a.msgs) - 1; i > 0; i-- {
		if a.msgs[i].Role == "user" {
			return i
		}
	}
	return len(a.msgs)
}

// lastAssistant is the index of the last assistant message (the tool
// results after it are unread), or len(msgs).
func (a *Agent) lastAssistant() int {
	for i := len(a.msgs) - 1; i > 0; i-- {
		if a.msgs[i].Role == "assistant" {
			return i
		}
	}
	return len(a.msgs)
}

// nextExchange returns the index of the first user message after from,
// or len(msgs).
func (a *Agent) nextExchange(from int) int {
	for i := from + 1; i < len(a.msgs); i++ {
		if a.msgs[i].Role == "user" {
			return i
		}
	}
	return len(a.msgs)
}

// summaryOf replaces a tool result by its start, its size and the saved
// file it names.
func summaryOf(text string) string {
	r := []rune(text)
	if len(r) <= summaryKeepRune {
		return text
	}
	s := fmt.Sprintf("[result summarised to fit the context budget: it had %d characters and began: %q", len(r), string(r[:summaryKeepRune]))
	if m := artifactRef.FindAllStringSubmatch(text, -1); len(m) > 0 {
		s += "; the full result is saved: [file:" + m[len(m)-1][1] + "]"
	}
	return s + "]"
}
