package chat

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxEventBytes bounds one server-sent event.
const maxEventBytes = 8 << 20

// chunk is one streamed completion chunk.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    *int         `json:"index"`
				ID       string       `json:"id"`
				Type     string       `json:"type"`
				Function FunctionCall `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// readStream reads a chat-completions event stream to its end ([DONE] or
// EOF) and assembles the completion: text deltas joined (and handed to
// onDelta as they come), tool calls assembled by index.
func readStream(r io.Reader, onDelta func(string)) (Completion, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventBytes)
	var (
		out  = Completion{Message: Message{Role: "assistant"}}
		text strings.Builder
		data strings.Builder
	)
	flush := func() (bool, error) {
		d := data.String()
		data.Reset()
		if d == "" {
			return false, nil
		}
		if strings.TrimSpace(d) == "[DONE]" {
			return true, nil
		}
		var c chunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			return false, fmt.Errorf("a streamed chunk is not JSON: %w", err)
		}
		return false, apply(&out, &text, c, onDelta)
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if done, err := flush(); done || err != nil {
				out.Message.Content = text.String()
				return out, err
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(v, " "))
		}
	}
	if err := sc.Err(); err != nil {
		return Completion{}, fmt.Errorf("reading the stream: %w", err)
	}
	if _, err := flush(); err != nil {
		return Completion{}, err
	}
	out.Message.Content = text.String()
	return out, nil
}

// apply adds one chunk to the completion.
func apply(out *Completion, text *strings.Builder, c chunk, onDelta func(string)) error {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		msg, _ := errorMessage([]byte(`{"error":` + string(c.Error) + `}`))
		return errors.New("the stream ended with an error: " + msg)
	}
	if c.Usage != nil {
		out.Usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Delta.Content != "" {
			text.WriteString(ch.Delta.Content)
			if onDelta != nil {
				onDelta(ch.Delta.Content)
			}
		}
		for i, tc := range ch.Delta.ToolCalls {
			idx := i
			if tc.Index != nil {
				idx = *tc.Index
			}
			if idx < 0 || idx > 1024 {
				return fmt.Errorf("a streamed tool call has index %d", idx)
			}
			for len(out.Message.ToolCalls) <= idx {
				out.Message.ToolCalls = append(out.Message.ToolCalls, ToolCall{Type: "function"})
			}
			call := &out.Message.ToolCalls[idx]
			if tc.ID != "" {
				call.ID = tc.ID
			}
			if n := tc.Function.Name; n != "" && n != call.Function.Name {
				call.Function.Name += n // a name sent in pieces; a repeated one is kept once
			}
			call.Function.Arguments += tc.Function.Arguments
		}
		if ch.FinishReason != "" {
			out.FinishReason = ch.FinishReason
		}
	}
	return nil
}
