package chat

import (
	"encoding/json"
	"sync"
	"time"
)

// Event types: what the loop reports, one JSON object per line with
// --json and in the transcript (see docs/chat.md).
const (
	EventUser       = "user"        // the user's message
	EventDelta      = "delta"       // a piece of streamed text (terminal only)
	EventText       = "text"        // the model's text of one round
	EventToolCall   = "tool_call"   // the model calls a tool
	EventToolResult = "tool_result" // a tool call's result, summarised
	EventProgress   = "progress"    // a server's progress on a running call
	EventLog        = "log"         // a server's log message
	EventUnlock     = "unlock"      // a search unlocked tools
	EventUsage      = "usage"       // the endpoint's token usage of one round
	EventContext    = "context"     // old tool results summarised or messages dropped to fit the budget
	EventAnswer     = "answer"      // the final answer to the user's message
	EventCancelled  = "cancelled"   // the user cancelled the running request or call
	EventError      = "error"       // the prompt failed
	EventClear      = "clear"       // the conversation was cleared (/clear)
)

// Event is one thing that happened in a chat. Which fields are set
// depends on Type; unset ones are left out of the JSON.
type Event struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	// Round is the model round (1 for the first request of a prompt).
	Round int `json:"round,omitempty"`
	// Text: the user's message, the model's text, the answer, a delta, a
	// progress or log message.
	Text string `json:"text,omitempty"`
	// ID and Name: the tool call.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Arguments are a tool call's arguments (JSON as the model sent them,
	// or a string when they are not JSON).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// IsError: the tool reported an error or the call failed.
	IsError bool `json:"is_error,omitempty"`
	// Chars is the length of the result text the model gets.
	Chars int `json:"chars,omitempty"`
	// Summary is the start of the result text.
	Summary string `json:"summary,omitempty"`
	// Artifact is the saved full result a bounded result points to.
	Artifact string `json:"artifact,omitempty"`
	// Tools are the tools a search unlocked; Turns how many model rounds
	// they stay unlocked.
	Tools []string `json:"tools,omitempty"`
	Turns int      `json:"turns,omitempty"`
	// Usage is a round's token usage.
	Usage *Usage `json:"usage,omitempty"`
	// Action (context): "summarised" or "dropped"; Messages how many;
	// Before and After the estimated tokens of the conversation.
	Action   string `json:"action,omitempty"`
	Messages int    `json:"messages,omitempty"`
	Before   int    `json:"before_tokens,omitempty"`
	After    int    `json:"after_tokens,omitempty"`
	// Progress and Total: a progress notification's numbers.
	Progress float64 `json:"progress,omitempty"`
	Total    float64 `json:"total,omitempty"`
	// Server and Level: a log message's server and level.
	Server string `json:"server,omitempty"`
	Level  string `json:"level,omitempty"`
	// Error is what failed.
	Error string `json:"error,omitempty"`
}

// Observer receives a chat's events. Observe must not block for long:
// progress and log events come from the servers' message path.
type Observer interface {
	Observe(Event)
}

// ObserverFunc is a function as an Observer.
type ObserverFunc func(Event)

var _ Observer = ObserverFunc(nil)

// Observe calls f.
func (f ObserverFunc) Observe(e Event) { f(e) }

// Observers fans events out to several observers, in order, one event at
// a time. Safe for concurrent use.
type Observers struct {
	mu   sync.Mutex
	list []Observer
}

var _ Observer = (*Observers)(nil)

// NewObservers returns the fan-out of list (nil entries skipped).
func NewObservers(list ...Observer) *Observers {
	o := &Observers{}
	for _, x := range list {
		if x != nil {
			o.list = append(o.list, x)
		}
	}
	return o
}

// Observe hands e to every observer, stamping its time if unset.
func (o *Observers) Observe(e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, x := range o.list {
		x.Observe(e)
	}
}
