package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzRecordJSON: a record with any strings encodes to valid JSON that
// decodes back to the record (invalid UTF-8 replaced), byte for byte what
// encoding/json writes for the same fields (with HTML escaping off).
func FuzzRecordJSON(f *testing.F) {
	for _, s := range []string{"", "plain", `q"uote\\`, "ctl\x00\x1f\n\t", "bad\xff\xfeutf8", "ls\u2028ps\u2029", "é😀", "<&>"} {
		f.Add(s, s+"x", 1.5, -32602)
	}
	f.Fuzz(func(t *testing.T, a, b string, ms float64, code int) {
		if ms != ms || ms < 0 || ms > 1e15 {
			ms = 1.25
		}
		r := Record{Time: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), Client: a, Session: b, Server: a, Method: b,
			Name: a + b, DurationMS: ms, Outcome: Outcome(b), Code: code, BytesIn: len(a), BytesOut: len(b), ArgsSHA256: b}
		line := r.appendJSON(nil)
		if !json.Valid(line) {
			t.Fatalf("invalid JSON: %s", line)
		}
		var back Record
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatal(err)
		}
		want := r
		fix := func(s string) string { // each invalid byte becomes U+FFFD, as encoding/json does
			var b strings.Builder
			for i, r := range s {
				if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd") {
					r = '\ufffd'
				}
				b.WriteRune(r)
			}
			return b.String()
		}
		want.Client, want.Session, want.Server, want.Method, want.Name = fix(a), fix(b), fix(a), fix(b), fix(a+b)
		want.Outcome, want.ArgsSHA256 = Outcome(fix(b)), fix(b)
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("round trip (-want +got):\n%s\nline %s", diff, line)
		}
		type plain Record
		var std bytes.Buffer
		enc := json.NewEncoder(&std)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(struct {
			Time string `json:"time"`
			plain
		}{r.Time.Format(TimeFormat), plain(r)})
		if got := string(line) + "\n"; got != std.String() {
			t.Errorf("differs from encoding/json:\n ours %s std  %s", got, std.String())
		}
	})
}
