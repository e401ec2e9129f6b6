package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/host"
)

// MalformedError is returned when the model sent malformed tool calls in
// two rounds of one message: it was told the first time.
type MalformedError struct {
	// Calls describe the malformed calls of the last round.
	Calls []string
}

// Error implements error.
func (e *MalformedError) Error() string {
	return "the model sent malformed tool calls again after being told: " + strings.Join(e.Calls, "; ") +
		" (a model without tool-call support answers like this: try another model)"
}

// summaryChars is how much of a result an event quotes.
const summaryChars = 200

// artifactRef finds the saved payload a bounded result names.
var artifactRef = regexp.MustCompile(`\[file:([^\]\n]+)\]`)

// runRound runs one round's tool calls concurrently and appends their
// results, in the calls' order. It returns the malformed calls.
func (a *Agent) runRound(ctx context.Context, round int, calls []ToolCall) []string {
	search := slices.ContainsFunc(calls, func(c ToolCall) bool { return a.sess.IsSearchTool(c.Function.Name) })
	var before map[string]bool
	if search {
		before = a.visibleNames()
	}
	results := make([]Message, len(calls))
	bad := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		a.obs.Observe(Event{Type: EventToolCall, Round: round, ID: c.ID, Name: c.Function.Name, Arguments: argumentsJSON(c.Function.Arguments)})
		wg.Go(func() { results[i], bad[i] = a.runCall(ctx, round, c) })
	}
	wg.Wait()
	a.msgs = append(a.msgs, results...)
	if search {
		a.reportUnlocks(round, before)
	}
	return slices.DeleteFunc(bad, func(s string) bool { return s == "" })
}

// runCall runs one call; a malformed one is answered without running and
// described in the second result.
func (a *Agent) runCall(ctx context.Context, round int, c ToolCall) (Message, string) {
	reply := func(text string, isError bool) Message {
		a.observeResult(round, c, text, isError)
		return Message{Role: "tool", ToolCallID: c.ID, Name: c.Function.Name, Content: text}
	}
	args, problem := checkArguments(c)
	if problem != "" {
		return reply("error: your call was malformed: "+problem+". Call the tool again with one JSON object of arguments matching its input schema.", true), fmt.Sprintf("%s: %s", displayName(c.Function.Name), problem)
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if a.opts.CallTimeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, a.opts.CallTimeout)
	}
	defer cancel()
	a.calls.Store(c.ID, c.Function.Name)
	defer a.calls.Delete(c.ID)
	meta, _ := json.Marshal(map[string]string{"progressToken": c.ID})
	r, err := a.sess.CallWith(cctx, c.Function.Name, args, host.CallOptions{Meta: meta, OwnTurns: true})
	switch {
	case ctx.Err() != nil:
		return reply("error: the user cancelled this call", true), ""
	case err != nil && cctx.Err() != nil: // the per-call bound, not the user
		return reply(fmt.Sprintf("error: no result within %s (--call-timeout); the server was asked to cancel", a.opts.CallTimeout), true), ""
	case err != nil:
		return reply("error: "+err.Error(), true), ""
	}
	text := resultText(r.Result)
	if r.Result.IsError {
		text = "error: " + text
	}
	return reply(text, r.Result.IsError), ""
}

// checkArguments returns a call's arguments, or what is wrong with it.
func checkArguments(c ToolCall) (json.RawMessage, string) {
	if c.Function.Name == "" {
		return nil, "the call names no tool"
	}
	raw := strings.TrimSpace(c.Function.Arguments)
	if raw == "" {
		raw = "{}"
	}
	if !json.Valid([]byte(raw)) {
		return nil, fmt.Sprintf("its arguments are not valid JSON: %s", quoteStart(raw))
	}
	if raw[0] != '{' {
		return nil, fmt.Sprintf("its arguments are not a JSON object: %s", quoteStart(raw))
	}
	return json.RawMessage(raw), ""
}

// observeResult reports a call's result, summarised.
func (a *Agent) observeResult(round int, c ToolCall, text string, isError bool) {
	e := Event{Type: EventToolResult, Round: round, ID: c.ID, Name: c.Function.Name, IsError: isError,
		Chars: len([]rune(text)), Summary: summarise(text)}
	if m := artifactRef.FindAllStringSubmatch(text, -1); len(m) > 0 {
		e.Artifact = m[len(m)-1][1]
	}
	a.obs.Observe(e)
}

// reportUnlocks reports the tools that became visible during a round.
func (a *Agent) reportUnlocks(round int, before map[string]bool) {
	var fresh []string
	for name := range a.visibleNames() {
		if !before[name] {
			fresh = append(fresh, name)
		}
	}
	if len(fresh) > 0 {
		slices.Sort(fresh)
		a.obs.Observe(Event{Type: EventUnlock, Round: round, Tools: fresh, Turns: a.opts.UnlockTurns})
	}
}

// visibleNames returns the names of the tools the session sees.
func (a *Agent) visibleNames() map[string]bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, _ := a.sess.Visible(ctx)
	out := make(map[string]bool, len(tools))
	for _, t := range tools {
		out[t.Name] = true
	}
	return out
}

// resultText is a result as the model reads it: its text items as they
// are (already bounded by result shaping), other items summarised.
func resultText(res host.ToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c.Type {
		case host.ContentText:
			parts = append(parts, c.Text)
		case host.ContentImage:
			parts = append(parts, fmt.Sprintf("[image %s, %d base64 chars, not shown]", c.MIMEType, len(c.Data)))
		case host.ContentAudio:
			parts = append(parts, fmt.Sprintf("[audio %s, %d base64 chars, not shown]", c.MIMEType, len(c.Data)))
		case host.ContentResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", c.URI, c.Name))
		case host.ContentResource:
			if c.Data == "" {
				parts = append(parts, c.Text)
			} else {
				parts = append(parts, "[embedded binary resource, not shown]")
			}
		default:
			parts = append(parts, "[content of another type, not shown]")
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// argumentsJSON is a call's arguments for an event: the JSON as sent, or
// the text as a JSON string when it is not JSON.
func argumentsJSON(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// summarise returns the start of text on one line.
func summarise(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if r := []rune(s); len(r) > summaryChars {
		return string(r[:summaryChars]) + "…"
	}
	return s
}

func quoteStart(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func displayName(name string) string {
	if name == "" {
		return "(no name)"
	}
	return name
}

// notify turns the session's notifications into events; it must not
// block (Observers only format and write).
func (a *Agent) notify(n host.Notification) {
	switch n.Method {
	case "notifications/progress":
		var p struct {
			Token    any     `json:"progressToken"`
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		}
		if json.Unmarshal(n.Params, &p) != nil {
			return
		}
		id := fmt.Sprint(p.Token)
		name, _ := a.calls.Load(id)
		nm, _ := name.(string)
		a.obs.Observe(Event{Type: EventProgress, ID: id, Name: nm, Server: n.Server, Progress: p.Progress, Total: p.Total, Text: p.Message})
	case "notifications/message":
		var p struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		}
		if json.Unmarshal(n.Params, &p) != nil {
			return
		}
		var text string
		if json.Unmarshal(p.Data, &text) != nil {
			text = string(p.Data)
		}
		a.obs.Observe(Event{Type: EventLog, Server: n.Server, Level: p.Level, Text: text})
	}
}
