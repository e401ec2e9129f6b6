package api_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/api"
)

type sseEvent struct{ name, data string }

// stream opens GET /api/events and returns its events (a ping as an event
// named "ping"); the channel closes when the stream ends.
func stream(t *testing.T, url string) <-chan sseEvent {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", url+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /api/events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan sseEvent, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		var ev sseEvent
		emit := func(e sseEvent) bool {
			select {
			case out <- e:
				return true
			case <-t.Context().Done(): // the test is over: nobody reads
				return false
			}
		}
		for sc.Scan() {
			switch line := sc.Text(); {
			case line == ": ping":
				if !emit(sseEvent{name: "ping"}) {
					return
				}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "" && ev.name != "":
				if !emit(ev) {
					return
				}
				ev = sseEvent{}
			}
		}
	}()
	return out
}

// next returns the next event named name, failing after a generous wait.
func next(t *testing.T, events <-chan sseEvent, name string, cond func(string) bool) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended before a %s event", name)
			}
			if strings.Contains(ev.data, secretValue) {
				t.Fatalf("event %s shows the secret: %s", ev.name, ev.data)
			}
			if ev.name == name && (cond == nil || cond(ev.data)) {
				return ev.data
			}
		case <-deadline:
			t.Fatalf("no %s event", name)
		}
	}
}

// A config file edited behind the API's back (applied by a file watch, as
// serve does) reaches the stream as servers and settings events; idle
// streams ping; Stop ends them.
func TestEvents(t *testing.T) {
	f := newFixture(t)
	stop := make(chan struct{})
	srv := httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Stop: stop, EventPing: 100 * time.Millisecond}))
	defer srv.Close()
	events := stream(t, srv.URL)
	var first api.ServerList
	if err := json.Unmarshal([]byte(next(t, events, "servers", nil)), &first); err != nil || len(first.Servers) != 1 {
		t.Fatalf("first servers event: %+v, %v", first, err)
	}
	var settings api.SettingsBody
	if err := json.Unmarshal([]byte(next(t, events, "settings", nil)), &settings); err != nil || settings.Version != first.Version {
		t.Fatalf("first settings event: %+v, %v", settings, err)
	}
	next(t, events, "ping", nil)

	w, err := f.m.WatchFile(0)
	if err != nil {
		t.Fatal(err)
	}
	go w.Run(t.Context(), func() { _, _ = f.m.Reload(f.h) })
	f.write(t, map[string]any{"a": f.server(), "b": f.server()}, func(m map[string]any) { m["max_inline_text_chars"] = 4321 })
	next(t, events, "servers", func(d string) bool {
		var l api.ServerList
		return json.Unmarshal([]byte(d), &l) == nil && len(l.Servers) == 2 && l.Servers[1].Name == "b" && l.Version != first.Version
	})
	next(t, events, "settings", func(d string) bool {
		var s api.SettingsBody
		return json.Unmarshal([]byte(d), &s) == nil && *s.Settings.MaxInlineTextChars == 4321
	})
	// Calls change the statistics, which reach the stream too.
	if code, body := f.do(t, "POST", "/api/tools/mcp_a_echo/call", `{"text":"hi"}`); code != 200 {
		t.Fatalf("call: %d %s", code, body)
	}
	next(t, events, "servers", func(d string) bool {
		var l api.ServerList
		return json.Unmarshal([]byte(d), &l) == nil && l.Servers[0].Calls == 1
	})
	close(stop)
	for range events { // the stream ends
	}
}

// No change goes unsent, whatever else wakes the stream: with a ping due
// at every turn of its loop, each reload still reaches the stream as a
// servers event of the new config version. (A stream that took a fresh
// change channel after a ping lost the change that had closed the old
// one about half of the time, and the dashboard showed a stale state.)
func TestEventsMissNoChangeBesidePings(t *testing.T) {
	f := newFixture(t)
	stop := make(chan struct{})
	srv := httptest.NewServer(api.New(api.Options{Host: f.h, Manager: f.m, Stop: stop, EventPing: time.Nanosecond}))
	defer srv.Close()
	defer close(stop) // ends the stream, which srv.Close waits for
	events := stream(t, srv.URL)
	next(t, events, "servers", nil)
	for i := range 20 {
		f.write(t, map[string]any{"a": f.server()}, func(m map[string]any) { m["max_inline_text_chars"] = 1000 + i })
		if _, err := f.m.Reload(f.h); err != nil {
			t.Fatal(err)
		}
		version, err := f.m.Version()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("reload %d: waiting for a servers event of version %s", i+1, version)
		next(t, events, "servers", func(d string) bool {
			var l api.ServerList
			return json.Unmarshal([]byte(d), &l) == nil && l.Version == version
		})
	}
}
