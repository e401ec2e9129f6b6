package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/registry"
)

// Model answers chat-completions requests; *Client is one.
type Model interface {
	Complete(ctx context.Context, req Request, onDelta func(string)) (Completion, error)
}

// Host is what the agent needs of a *host.Host: sessions, and the servers
// for /servers.
type Host interface {
	NewSession() *host.Session
	ServerListings() []host.ServerListing
}

var _ Host = (*host.Host)(nil)

// Options bound and shape the loop.
type Options struct {
	// System is the system prompt; "" uses DefaultSystem's.
	System string
	// MaxTurns bounds the model rounds of one message (0: DefaultMaxTurns).
	MaxTurns int
	// CallTimeout bounds each tool call (0: the host's
	// timeouts.call_seconds alone).
	CallTimeout time.Duration
	// ContextTokens is the context budget, in estimated tokens (0:
	// DefaultContextTokens): the oldest tool results are summarised, then
	// the oldest exchanges dropped, to stay within it.
	ContextTokens int
	// UnlockTurns is how many model rounds a search unlocks tools for
	// (the discovery ttl), reported in unlock events.
	UnlockTurns int
}

// Defaults of Options.
const (
	DefaultMaxTurns      = 20
	DefaultContextTokens = 32000
)

// Agent is one chat: a conversation with the model over one host session.
// Ask runs one message at a time; Tools, Servers, Messages and Clear may
// be called between them. Observe events through the Observer given to
// New.
type Agent struct {
	h     Host
	model Model
	opts  Options
	obs   Observer

	mu   sync.Mutex // guards sess, msgs and ids
	sess *host.Session
	msgs []Message
	ids  int

	calls sync.Map // progress token (the call id) → tool name, while the call runs
}

// New starts a chat on a new session of h.
func New(h Host, model Model, opts Options, obs Observer) *Agent {
	if opts.MaxTurns <= 0 {
		opts.MaxTurns = DefaultMaxTurns
	}
	if opts.ContextTokens <= 0 {
		opts.ContextTokens = DefaultContextTokens
	}
	if obs == nil {
		obs = ObserverFunc(func(Event) {})
	}
	a := &Agent{h: h, model: model, opts: opts, obs: obs}
	a.sess = a.newSession()
	return a
}

// newSession opens a session whose servers' progress and log messages
// become events.
func (a *Agent) newSession() *host.Session {
	s := a.h.NewSession()
	s.SetHandlers(host.ClientHandlers{Notify: a.notify})
	return s
}

// TurnLimitError is returned when the model still called tools after
// Options.MaxTurns rounds.
type TurnLimitError struct{ Turns int }

// Error implements error.
func (e *TurnLimitError) Error() string {
	return fmt.Sprintf("the model was still calling tools after %d rounds (--max-turns %d); ask it to go on, or raise --max-turns", e.Turns, e.Turns)
}

// Ask sends the user's text and runs model rounds until the model answers
// without calling tools, and returns that answer. Tool calls run through
// the session, several of one round at once. The error is ctx's when it
// ended (the user cancelled), an *EndpointError, a *TurnLimitError or a
// *MalformedError.
func (a *Agent) Ask(ctx context.Context, text string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.obs.Observe(Event{Type: EventUser, Text: text})
	if len(a.msgs) == 0 {
		a.msgs = append(a.msgs, Message{Role: "system", Content: a.systemPrompt(ctx)})
	}
	a.msgs = append(a.msgs, Message{Role: "user", Content: text})
	answer, err := a.loop(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		a.obs.Observe(Event{Type: EventCancelled, Text: "cancelled by the user"})
		return "", fmt.Errorf("cancelled: %w", context.Cause(ctx))
	case err != nil:
		a.obs.Observe(Event{Type: EventError, Error: err.Error()})
		return "", err
	}
	a.obs.Observe(Event{Type: EventAnswer, Text: answer})
	return answer, nil
}

// loop runs the rounds of one message.
func (a *Agent) loop(ctx context.Context) (string, error) {
	var malformed *MalformedError
	for round := 1; ; round++ {
		if round > a.opts.MaxTurns {
			return "", &TurnLimitError{Turns: a.opts.MaxTurns}
		}
		msg, err := a.round(ctx, round)
		if err != nil {
			return "", err
		}
		// A turn is one model round: unlocks age here, before this round's
		// searches unlock for a full ttl of the rounds that follow.
		a.endTurn()
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		bad := a.runRound(ctx, round, msg.ToolCalls)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if len(bad) > 0 {
			if malformed != nil { // told once already: now the user
				return "", &MalformedError{Calls: bad}
			}
			malformed = &MalformedError{Calls: bad}
		}
	}
}

// round asks the model once and records its answer.
func (a *Agent) round(ctx context.Context, round int) (Message, error) {
	tools, err := a.toolList(ctx)
	if err != nil {
		return Message{}, err
	}
	a.fit(round, tools)
	comp, err := a.model.Complete(ctx, Request{Messages: a.msgs, Tools: tools}, func(d string) {
		a.obs.Observe(Event{Type: EventDelta, Round: round, Text: d})
	})
	if err != nil {
		return Message{}, err
	}
	if comp.Usage != nil {
		a.obs.Observe(Event{Type: EventUsage, Round: round, Usage: comp.Usage})
	}
	msg := comp.Message
	msg.Role = "assistant"
	a.nameCalls(msg.ToolCalls)
	if strings.TrimSpace(msg.Content) != "" {
		a.obs.Observe(Event{Type: EventText, Round: round, Text: msg.Content})
	}
	a.msgs = append(a.msgs, msg)
	return msg, nil
}

// nameCalls gives every tool call an id (some endpoints send none) that
// no earlier call of the chat has.
func (a *Agent) nameCalls(calls []ToolCall) {
	seen := map[string]bool{}
	for i := range calls {
		c := &calls[i]
		c.Type = "function"
		if c.ID == "" || seen[c.ID] {
			a.ids++
			c.ID = fmt.Sprintf("call_plughost_%d", a.ids)
		}
		seen[c.ID] = true
	}
}

// endTurn ends the session's turn, whatever became of the request's
// context (the bookkeeping must happen even when the user cancelled).
func (a *Agent) endTurn() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.sess.EndTurn(ctx); err != nil && !errors.Is(err, host.ErrSessionNotFound) {
		a.obs.Observe(Event{Type: EventLog, Level: "warning", Text: "ending the turn: " + err.Error()})
	}
}

// Tools returns the tools the model sees now.
func (a *Agent) Tools(ctx context.Context) ([]registry.Tool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess.Tools(ctx)
}

// Servers returns the configured servers and their state.
func (a *Agent) Servers() []host.ServerListing { return a.h.ServerListings() }

// Messages returns a copy of the conversation as the model gets it.
func (a *Agent) Messages() []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Message(nil), a.msgs...)
}

// Clear forgets the conversation and starts a new session (nothing
// unlocked).
func (a *Agent) Clear(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.sess.Close(ctx)
	a.sess, a.msgs = a.newSession(), nil
	a.obs.Observe(Event{Type: EventClear})
	if errors.Is(err, host.ErrSessionNotFound) {
		err = nil
	}
	return err
}

// Close ends the chat's session.
func (a *Agent) Close(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.sess.Close(ctx)
	if errors.Is(err, host.ErrSessionNotFound) {
		return nil
	}
	return err
}
