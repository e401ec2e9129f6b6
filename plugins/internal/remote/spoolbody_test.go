package remote

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/plughost/plughost/pluginapi"
)

// bigResult is a tools/call result message of id whose one text item is text.
func bigResult(t *testing.T, id int, text string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"content": []map[string]any{{"type": "text", "text": text}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// spooledPath checks msg is the small result of id standing in for a
// spooled one and returns the file it names.
func spooledPath(t *testing.T, msg string, id int) string {
	t.Helper()
	var m struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct{ Text string } `json:"content"`
			Meta    map[string]struct {
				Path string `json:"path"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("stand-in %.300q: %v", msg, err)
	}
	path := m.Result.Meta["plughost/spooled"].Path
	if m.ID != id || len(m.Result.Content) != 1 || path == "" || !strings.Contains(m.Result.Content[0].Text, path) {
		t.Fatalf("stand-in %.300q: want a result of id %d naming its file", msg, id)
	}
	return path
}

// checkFile checks path holds want, mode 0600.
func checkFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("spooled file holds %d bytes, want %d", len(got), len(want))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("spooled file mode %v, want 0600", fi.Mode().Perm())
	}
}

func testSpool(dir string) *pluginapi.ResultSpool {
	return &pluginapi.ResultSpool{Dir: dir, MaxBytes: 1 << 20, NamePrefix: "srv__result", MaxSetting: "tools.mcp.max_result_mb", MessageSetting: "tools.mcp.max_message_mb"}
}

// A plain body over the limit that is a result reaches mcp-go as the small
// result naming the file; one within the limit passes unchanged, whole.
func TestSpoolBody(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("spooled \"text\"\n", 20000) // 300 KB
	for _, oneByte := range []bool{false, true} {
		wrap := func(s string) io.ReadCloser {
			var r io.Reader = strings.NewReader(s)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			return &spoolBody{ReadCloser: io.NopCloser(r), limit: 100 << 10, spool: testSpool(dir)}
		}
		small := bigResult(t, 1, strings.Repeat("y", 90<<10))
		if got, err := io.ReadAll(wrap(small)); err != nil || string(got) != small {
			t.Fatalf("a body within the limit: %d bytes, %v", len(got), err)
		}
		got, err := io.ReadAll(wrap(bigResult(t, 2, text)))
		if err != nil {
			t.Fatal(err)
		}
		path := spooledPath(t, string(got), 2)
		if filepath.Dir(path) != dir || !strings.HasPrefix(filepath.Base(path), "srv__result-") {
			t.Errorf("spooled to %s; want srv__result-… in %s", path, dir)
		}
		checkFile(t, path, text)
	}
}

// What cannot be spooled is refused as over the limit, naming the setting
// that raises the limit passed, and leaves no file.
func TestSpoolBodyRefuses(t *testing.T) {
	for name, tt := range map[string]struct{ body, want string }{
		"over max_result": {`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"}]}}`, "raise tools.mcp.max_result_mb"},
		"a batch":         {`[` + bigResultPlain(300<<10) + `]`, "response body larger than the 102400 bytes limit"},
		"a notification":  {`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 300<<10) + `"}}`, "response body larger"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			b := &spoolBody{ReadCloser: io.NopCloser(strings.NewReader(tt.body)), limit: 100 << 10, spool: testSpool(dir)}
			_, err := io.ReadAll(b)
			if pluginapi.KindOf(err) != pluginapi.KindMessageTooLarge || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("read: %v; want KindMessageTooLarge saying %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left in the spool dir: %v", entries)
			}
		})
	}
}

func bigResultPlain(n int) string {
	return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}}`
}

// In an event stream, an event over the limit carrying a result (its data
// over several lines, CRLF line ends) becomes one small event with the same
// id; the events around it pass unchanged.
func TestEventSpoolBody(t *testing.T) {
	text := strings.Repeat("event text ", 30000) // 330 KB
	msg := bigResult(t, 7, text)
	// Split the message over data lines at token boundaries, as a server may.
	i := strings.Index(msg, `"result"`)
	data := "data: " + msg[:i] + "\r\ndata:" + msg[i:] + "\r\n"
	before := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
	after := ": keep-alive\n\nid: 9\ndata: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n"
	stream := before + "id: 42\r\nevent: message\r\n" + data + "\r\n" + after
	for _, oneByte := range []bool{false, true} {
		dir := t.TempDir()
		var r io.Reader = strings.NewReader(stream)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		got, err := io.ReadAll(&eventSpoolBody{ReadCloser: io.NopCloser(r), limit: 100 << 10, spool: testSpool(dir), nl: true})
		if err != nil {
			t.Fatal(err)
		}
		out := string(got)
		if !strings.HasPrefix(out, before) || !strings.HasSuffix(out, after) {
			t.Fatalf("the events around the spooled one changed: %.400q", out)
		}
		ev := strings.TrimSuffix(strings.TrimPrefix(out, before), after)
		line, ok := strings.CutPrefix(ev, "event: message\nid: 42\ndata: ")
		if !ok || !strings.HasSuffix(line, "\n\n") || strings.Count(line, "\n") != 2 {
			t.Fatalf("stand-in event %.400q", ev)
		}
		checkFile(t, spooledPath(t, strings.TrimSpace(line), 7), text)
	}
}

// An event over the limit that is not a result fails the stream as before.
func TestEventSpoolBodyRefuses(t *testing.T) {
	dir := t.TempDir()
	stream := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"" + strings.Repeat("x", 300<<10) + "\"}}\n\n"
	_, err := io.ReadAll(&eventSpoolBody{ReadCloser: io.NopCloser(strings.NewReader(stream)), limit: 100 << 10, spool: testSpool(dir), nl: true})
	if pluginapi.KindOf(err) != pluginapi.KindMessageTooLarge || !strings.Contains(err.Error(), "event larger than the 102400 bytes limit") {
		t.Fatalf("read: %v; want the event over the limit", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the spool dir: %v", entries)
	}
}
