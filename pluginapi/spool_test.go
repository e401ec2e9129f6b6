package pluginapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plughost/plughost/internal/ownertest"
)

// A result over the message limit is decoded into a file while it is read
// and handed on as a small result of the same id naming the file; the
// stream goes on in step.
func TestLineReaderSpoolsLargeResult(t *testing.T) {
	text := strings.Repeat("line é 😀 \"quoted\" \\ tab\t end\n", 12000) // ~370 KB decoded
	second := "second item"
	res := map[string]any{"content": []map[string]any{{"type": "text", "text": text}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "text", "text": second}}, "isError": true}
	big, err := json.Marshal(map[string]any{"result": res, "jsonrpc": "2.0", "id": "call-7"}) // id last, as some SDKs write it
	if err != nil {
		t.Fatal(err)
	}
	// Escape the non-ASCII as \u sequences too, the way some servers do.
	big = []byte(strings.ReplaceAll(string(big), "é", `\u00e9`))
	big = []byte(strings.ReplaceAll(string(big), "😀", `\ud83d\ude00`))
	stream := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + string(big) + "\n" + `{"jsonrpc":"2.0","method":"notifications/message"}` + "\n"
	dir := t.TempDir()
	r := NewLineReader(strings.NewReader(stream), 100<<10)
	r.SetSpool(&ResultSpool{Dir: dir, MaxBytes: 1 << 20, MessageSetting: "tools.mcp.max_message_mb"})

	if line, err := r.ReadLine(); err != nil || string(line) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("first line: %q, %v", line, err)
	}
	line, err := r.ReadLine()
	if err != nil {
		t.Fatalf("large result: %v", err)
	}
	if len(line) > 20<<10 {
		t.Errorf("the stand-in message is %d bytes; want it small", len(line))
	}
	var msg struct {
		ID     string `json:"id"`
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
			Meta    map[string]struct {
				Path string `json:"path"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		t.Fatalf("stand-in %s: %v", line, err)
	}
	path := msg.Result.Meta["plughost/spooled"].Path
	if msg.ID != "call-7" || !msg.Result.IsError || len(msg.Result.Content) != 1 || filepath.Dir(path) != dir {
		t.Fatalf("stand-in: id %q, isError %v, %d items, path %q", msg.ID, msg.Result.IsError, len(msg.Result.Content), path)
	}
	view := msg.Result.Content[0].Text
	if !strings.Contains(view, path) || !strings.Contains(view, "tools.mcp.max_message_mb") || !strings.Contains(view, text[:1000]) {
		t.Errorf("view does not name the file and setting or lacks the head: %.300q", view)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != text+"\n"+second {
		t.Errorf("spooled text differs: %d bytes, want %d", len(got), len(text)+1+len(second))
	}
	ownertest.Private(t, path)
	if line, err := r.ReadLine(); err != nil || !strings.Contains(string(line), "notifications/message") {
		t.Fatalf("line after the spooled one: %q, %v", line, err)
	}
}

// Past the spool's maximum, and for a message that is not a result, the
// limit still refuses the line, and no file is left behind.
func TestLineReaderSpoolRefuses(t *testing.T) {
	for name, line := range map[string]string{
		"result over max_result": `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"}]}}`,
		"notification":           `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 300<<10) + `"}}`,
		"not JSON":               strings.Repeat("x", 300<<10),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r := NewLineReader(strings.NewReader(line+"\n"), 100<<10)
			r.SetSpool(&ResultSpool{Dir: dir, MaxBytes: 1 << 20})
			_, err := r.ReadLine()
			if KindOf(err) != KindMessageTooLarge {
				t.Fatalf("err %v; want KindMessageTooLarge", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left in the spool dir: %v", entries)
			}
		})
	}
}

// A line refused while its gathered part is handed to the spool says how
// much of it was read — past the limit — not how much of it the spool had
// seen when it gave up (one gathered chunk).
func TestLineReaderSpoolRefusalCountsWhatWasRead(t *testing.T) {
	const limit = 3 << 20
	for name, line := range map[string]string{
		"notification": `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 4<<20) + `"}}`,
		"not JSON":     strings.Repeat("x", 4<<20),
	} {
		t.Run(name, func(t *testing.T) {
			r := NewLineReader(strings.NewReader(line+"\n"), limit)
			r.SetSpool(&ResultSpool{Dir: t.TempDir(), MaxBytes: 16 << 20})
			_, err := r.ReadLine()
			var tooLarge *MessageTooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("err %v; want a *MessageTooLargeError", err)
			}
			if tooLarge.Seen <= limit || tooLarge.Seen > len(line) {
				t.Errorf("Seen = %d; want the bytes read, past the %d limit: %v", tooLarge.Seen, limit, err)
			}
			if want := fmt.Sprintf("larger than the 3 MiB limit (refused after %d bytes)", tooLarge.Seen); !strings.Contains(err.Error(), want) {
				t.Errorf("message %q lacks %q", err, want)
			}
		})
	}
}
