package chat

import (
	"encoding/json"
)

// Message is one chat-completions message.
type Message struct {
	// Role is system, user, assistant or tool.
	Role string `json:"role"`
	// Content is the text (empty for an assistant message that only calls
	// tools).
	Content string `json:"content"`
	// ToolCalls are an assistant message's tool calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is a tool message's tool name, for /save; it is not sent
	// (OpenAI's API refuses members a message type does not have).
	Name string `json:"-"`

	// summarised: the content was replaced by a summary (budget.go).
	summarised bool
}

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is a tool call's function and its arguments, a JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// UnmarshalJSON accepts arguments as the standard JSON text, or as a JSON
// object, which some endpoints send instead.
func (f *FunctionCall) UnmarshalJSON(b []byte) error {
	var raw struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	f.Name = raw.Name
	var s string
	switch {
	case len(raw.Arguments) == 0 || string(raw.Arguments) == "null":
		f.Arguments = ""
	case json.Unmarshal(raw.Arguments, &s) == nil:
		f.Arguments = s
	default:
		f.Arguments = string(raw.Arguments)
	}
	return nil
}

// Usage is the token usage an endpoint reports for one completion.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Tool is a function the model may call, in the API's form.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction is a tool's name, description and JSON Schema parameters.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat-completions request.
type Request struct {
	Messages []Message
	Tools    []Tool
}

// Completion is the model's answer to one request.
type Completion struct {
	Message Message
	// Usage is nil when the endpoint reported none.
	Usage *Usage
	// FinishReason is the endpoint's (stop, tool_calls, length …).
	FinishReason string
}
