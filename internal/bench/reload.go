package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/manage"
)

// ReloadOptions say what Reload measures.
type ReloadOptions struct {
	Options
	// Rounds is how many edits are measured.
	Rounds int
}

// ReloadResult is what a live reload costs: from the moment an edit of one
// server's entry starts (the CLI's atomic write) until the host applied the
// file, and until that server runs again with its new settings, while the
// other servers keep running untouched.
type ReloadResult struct {
	// Servers is how many servers were configured; Rounds how many edits.
	Servers int `json:"servers"`
	Rounds  int `json:"rounds"`
	// Debounce is the file watch's quiet period, part of both figures.
	Debounce time.Duration `json:"debounce_ns"`
	// Applied is edit → Apply done (the new config in force).
	Applied Latency `json:"applied"`
	// Reconnected is edit → the edited server connected again, new process.
	Reconnected Latency `json:"reconnected"`
	// OthersRestarted counts restarts of servers that were not edited
	// (process changes seen after any round); 0 is the goal.
	OthersRestarted int `json:"others_restarted"`
}

// Reload runs o.Servers copies of the server from a config file watched as
// `plughost serve` watches it, then edits one server's entry o.Rounds times
// (an env value, so the server must restart) through the same write path as
// `plughost mcp add --force`, and measures each edit.
func Reload(ctx context.Context, o ReloadOptions) (ReloadResult, error) {
	r := ReloadResult{Servers: o.Servers, Rounds: o.Rounds, Debounce: manage.WatchDebounce}
	home, err := os.MkdirTemp("", "plughost-bench-reload-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(home)
	m := manage.New(manage.Options{Home: home, Environ: []string{"HOME=" + home}})
	for i := 0; i < o.Servers; i++ {
		if _, err := m.AddServer(fmt.Sprintf("s%02d", i), reloadServer(o, 0), manage.AddOptions{}); err != nil {
			return r, err
		}
	}
	h, err := watchedHost(ctx, m, o)
	if err != nil {
		return r, err
	}
	defer h.Close()
	w, err := m.WatchFile(0)
	if err != nil {
		return r, err
	}
	applied := make(chan time.Time, 1)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go w.Run(wctx, func() {
		if _, err := m.Reload(h); err == nil {
			applied <- time.Now()
		}
	})
	before := pids(h)
	var appliedIn, connectedIn []time.Duration
	for round := 1; round <= o.Rounds; round++ {
		old := before["s00"]
		began := time.Now()
		if _, err := m.AddServer("s00", reloadServer(o, round), manage.AddOptions{Replace: true}); err != nil {
			return r, err
		}
		select {
		case at := <-applied:
			appliedIn = append(appliedIn, at.Sub(began))
		case <-time.After(30 * time.Second):
			return r, fmt.Errorf("round %d: the edit was not applied within 30s (%s)", round, h.LastApply().Error)
		}
		at, err := reconnected(ctx, h, "s00", old)
		if err != nil {
			return r, fmt.Errorf("round %d: %w", round, err)
		}
		connectedIn = append(connectedIn, at.Sub(began))
		now := pids(h)
		for name, pid := range before {
			if name != "s00" && now[name] != pid {
				r.OthersRestarted++
			}
		}
		before = now
	}
	r.Applied, r.Reconnected = summarize(appliedIn), summarize(connectedIn)
	return r, nil
}

// reloadServer is the measured server's entry in a round: the round number
// in its environment makes each edit a change that needs a restart.
func reloadServer(o ReloadOptions, round int) config.Server {
	return config.Server{Enabled: true, Command: o.Command, Args: o.Args,
		Env: map[string]secret.String{"PLUGHOST_BENCH_ROUND": secret.String(strconv.Itoa(round))}}
}

// watchedHost starts a host on m's config and waits until every server is
// connected.
func watchedHost(ctx context.Context, m *manage.Manager, o ReloadOptions) (*host.Host, error) {
	l, err := m.Load()
	if err != nil {
		return nil, err
	}
	h, err := host.NewFromLoaded(l.Loaded, host.Options{ConfigDir: filepath.Dir(l.UserFile), Environ: o.Environ, PluginDirs: o.PluginDirs, Version: "bench"})
	if err != nil {
		return nil, err
	}
	h.Start(ctx)
	if err := waitConnected(ctx, h, o.Servers); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// pids returns every server's process id.
func pids(h *host.Host) map[string]int {
	out := map[string]int{}
	for _, st := range h.Statuses() {
		out[st.Name] = st.ServerPID
	}
	return out
}

// reconnected waits until server runs with a process other than old and
// returns when it was seen connected.
func reconnected(ctx context.Context, h *host.Host, server string, old int) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		ch := h.Changed()
		if st, _ := h.Status(server); st.State == "connected" && st.ServerPID != 0 && st.ServerPID != old {
			return time.Now(), nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			st, _ := h.Status(server)
			return time.Time{}, fmt.Errorf("%s did not reconnect with a new process: %+v", server, st)
		}
	}
}
