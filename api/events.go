package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Event stream pacing.
const (
	// eventGap is the least time between two events of one stream (≤ 4/s):
	// changes meanwhile are coalesced into the next.
	eventGap = 250 * time.Millisecond
	// statsPoll is how often the stream looks whether calls were made
	// (call statistics change without a host notification).
	statsPoll = time.Second
	// defaultPing is how often an idle stream sends a comment, so proxies
	// and the browser keep it open.
	defaultPing = 15 * time.Second
)

// events streams server and settings changes as server-sent events:
// "servers" (the GET /api/servers body, of the page ?limit= and ?cursor=
// ask for) when any server's state, tools or
// call statistics change or the config is applied, and "settings" (the GET
// /api/settings body) when the config file changes. Both are sent once at
// the start. Authenticate with the header (fetch streaming; EventSource
// cannot send one).
func (a *handler) events(w http.ResponseWriter, r *http.Request) {
	page, err := parsePage(r.URL.Query())
	if err != nil {
		writeError(w, err)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	ctx := r.Context()
	ping := a.o.EventPing
	if ping <= 0 {
		ping = defaultPing
	}
	pinger := time.NewTicker(ping)
	defer pinger.Stop()
	poll := time.NewTicker(statsPoll)
	defer poll.Stop()

	version, calls := "", a.o.Host.CallCount()
	serversDue, settingsDue := true, true
	var last time.Time
	// changed is replaced only when it fires, before the list is built: a
	// change closes it, and it stays closed until this loop sees it, even
	// when a ping or a poll wakes the loop first.
	changed := a.o.Host.Changed()
	for {
		if serversDue || settingsDue {
			if wait := eventGap - time.Since(last); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return
				case <-a.o.Stop:
					return
				}
			}
			if v := a.version(); v != version {
				version, settingsDue = v, true
			}
			if serversDue && !a.send(ctx, w, rc, "servers", a.serverList(ctx, page)) {
				return
			}
			if settingsDue {
				body, err := a.settingsBody(ctx)
				if err == nil && !a.send(ctx, w, rc, "settings", body) {
					return
				}
			}
			// A change made while the list was built or sent has closed
			// changed, and the select below sees it.
			serversDue, settingsDue, last = false, false, time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-a.o.Stop:
			return
		case <-changed:
			changed = a.o.Host.Changed()
			serversDue = true
			if v := a.version(); v != version {
				settingsDue = true
			}
		case <-poll.C:
			if n := a.o.Host.CallCount(); n != calls {
				calls, serversDue = n, true
			}
		case <-pinger.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// send writes one event; false when the client is gone.
func (a *handler) send(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, event string, v any) bool {
	if ctx.Err() != nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		a.o.Logger.Warn("event", "event", event, "error", err)
		return true
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", event, b)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return false
	}
	return rc.Flush() == nil
}
