package sseclient

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEventReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10)     // longer than the reader's buffer
	split := strings.Repeat("y", 64<<10-6-1) // "data: " split…"\r" fills the buffer, "\n" comes next
	cases := []struct {
		name   string
		stream string
		max    int
		want   []string // name, then data, per event
		err    error    // the error after the events (io.EOF: a clean end)
	}{
		{"one message", "data: {}\n\n", 0, []string{"message", "{}"}, io.EOF},
		{"named events", "event: endpoint\ndata: /m?s=1\n\nevent:message\ndata:{\"a\":1}\n\n", 0,
			[]string{"endpoint", "/m?s=1", "message", `{"a":1}`}, io.EOF},
		{"data lines joined by a newline", "data: {\"a\":\ndata:  1}\n\n", 0, []string{"message", "{\"a\":\n 1}"}, io.EOF},
		{"CRLF line ends", "event: endpoint\r\ndata: /m\r\n\r\n", 0, []string{"endpoint", "/m"}, io.EOF},
		{"comments, id, retry and unknown fields skipped", ": hi\nid: 7\nretry: 10\nfoo: bar\ndata: x\n\n", 0, []string{"message", "x"}, io.EOF},
		{"a field without a colon", "data\n\n", 0, []string{"message", ""}, io.EOF},
		{"blank lines without data dispatch nothing", "\n\n: keep-alive\n\nevent: x\n\ndata: y\n\n", 0, []string{"message", "y"}, io.EOF},
		{"the event name is reset after each event", "event: endpoint\ndata: a\n\ndata: b\n\n", 0,
			[]string{"endpoint", "a", "message", "b"}, io.EOF},
		{"a line longer than the buffer", "data: " + long + "\r\n\n", 0, []string{"message", long}, io.EOF},
		{"a CRLF split by the buffer", "data: " + split + "\r\n\n", 0, []string{"message", split}, io.EOF},
		{"an unfinished event is dropped", "data: a\n\ndata: b\n", 0, []string{"message", "a"}, io.EOF},
		{"within the bound", "data: 12345\n\n", 5, []string{"message", "12345"}, io.EOF},
		{"over the bound", "data: 12345\n\ndata: 123\ndata: 45\n\n", 5, []string{"message", "12345"}, &TooLargeError{Limit: 5, Seen: 6}},
		{"a long line over the bound", "data: " + long + "\n\n", 100 << 10, nil, &TooLargeError{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newEventReader(strings.NewReader(tc.stream), tc.max)
			var got []string
			var err error
			for {
				var ev event
				if ev, err = r.next(); err != nil {
					break
				}
				got = append(got, ev.name, string(ev.data))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			var tooLarge *TooLargeError
			switch want := tc.err.(type) {
			case *TooLargeError:
				if !errors.As(err, &tooLarge) || tooLarge.Limit != tc.max || (want.Seen != 0 && tooLarge.Seen != want.Seen) {
					t.Errorf("error %v; want a TooLargeError with limit %d", err, tc.max)
				}
			default:
				if !errors.Is(err, tc.err) {
					t.Errorf("error %v; want %v", err, tc.err)
				}
			}
		})
	}
}
