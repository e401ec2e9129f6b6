package chat_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plughost/plughost/chat"
	"github.com/plughost/plughost/lib/secret"
)

// escapes is what a model or a server may send to take over a terminal:
// a colour, an OSC window title with a bell, an 8-bit CSI as a raw byte
// and as U+009B, a carriage return.
const escapes = "colour \x1b[31mRED\x1b[0m title \x1b]0;pwned\x07 csi8 \x9b2J c1 \u009b2J cr \rend"

// TestTerminalNeutralisesAndMasks: what the terminal shows has no control
// character but newlines, and no key; the JSON lines mask the key too and
// carry no raw C1 control.
func TestTerminalNeutralisesAndMasks(t *testing.T) {
	m := secret.NewMasker()
	m.Add("CHAT_KEY", testKey)
	var term, lines, answer bytes.Buffer
	show := chat.NewObservers(chat.NewTerminal(&term, m), chat.NewJSONLines(&lines, m))
	for _, e := range []chat.Event{
		{Type: chat.EventDelta, Text: "streamed " + escapes + "\n"},
		{Type: chat.EventToolCall, Name: "mcp_x_" + escapes, Arguments: json.RawMessage(`{"k":"` + testKey + `"}`)},
		{Type: chat.EventToolResult, Name: "mcp_x_y", Summary: escapes + " " + testKey, Artifact: "/w/" + escapes},
		{Type: chat.EventProgress, Name: "mcp_x_y", Progress: 1, Total: 2, Text: escapes},
		{Type: chat.EventLog, Server: "x", Level: "info", Text: escapes},
		{Type: chat.EventError, Error: "the endpoint said: Authorization: Bearer " + testKey + " " + escapes},
	} {
		show.Observe(e)
	}
	chat.WriteAnswer(&answer, m, "answer "+escapes+" "+testKey)
	for name, out := range map[string]string{"terminal": term.String(), "answer": answer.String()} {
		if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 }); i >= 0 {
			t.Errorf("%s output has a control character at %d: %q", name, i, out)
		}
		if strings.Contains(out, "\x9b") || strings.Contains(out, testKey) {
			t.Errorf("%s output has a raw CSI byte or the key: %q", name, out)
		}
		if !strings.Contains(out, `\x1b[31mRED`) {
			t.Errorf("%s output does not show the escape as text: %q", name, out)
		}
	}
	if strings.Contains(lines.String(), testKey) || strings.Contains(lines.String(), "streamed") {
		t.Errorf("JSON lines show the key or a delta:\n%s", lines.String())
	}
	if strings.ContainsRune(lines.String(), '\u009b') || strings.Contains(lines.String(), "\x9b") {
		t.Errorf("JSON lines carry a raw C1 CSI:\n%q", lines.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(lines.String()), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("not a JSON line: %q", l)
		}
	}
}
