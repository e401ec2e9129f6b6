//go:build linux

package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"
)

// faultStats counts the calls to one server in the fault run.
type faultStats struct {
	sent, ok, clear, lost, mismatched int
	firstLost, firstClear             string
	okStarts                          []time.Time // start times of the calls that succeeded
}

// faultRun sends concurrent calls through the gateway to five servers
// while one server is kill -9ed, the plugin of another is kill -9ed and a
// third is SIGSTOPped and SIGCONTed. Every call must come back either right
// (its own echo) or with an error naming the server: none lost, none
// answered with another call's result; the steady server never fails, and
// the killed ones are back within seconds.
//
// Servers on direct pipes share a stdio plugin process per plugin
// environment: killed, stopped and steady share one (a server's crash must
// stay its own inside it), plugkilled and plugmate (inherit_env, another
// environment) another, whose kill -9 both must come back from.
func (s *suite) faultRun() error {
	dur, workers := 4*time.Second, 6
	if s.full {
		dur, workers = 40*time.Second, 12
	}
	names := []string{"killed", "plugkilled", "plugmate", "stopped", "steady"}
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = s.stdio()
	}
	for _, n := range []string{"plugkilled", "plugmate"} {
		servers[n].(map[string]any)["inherit_env"] = true
	}
	sv, err := s.startServe("fault", serveOptions{servers: servers, mcp: map[string]any{"timeouts": map[string]any{"call_seconds": 10}}})
	if err != nil {
		return err
	}
	views, err := sv.waitServers(60*time.Second, "all servers connected", connected(names...))
	if err != nil {
		return err
	}

	s.check("fault", "shared plugin processes", "killed, stopped and steady share one; plugkilled and plugmate another",
		fmt.Sprintf("plugin pids: killed %d, stopped %d, steady %d; plugkilled %d, plugmate %d",
			views["killed"].PluginPID, views["stopped"].PluginPID, views["steady"].PluginPID, views["plugkilled"].PluginPID, views["plugmate"].PluginPID),
		views["killed"].PluginPID != 0 && views["killed"].PluginPID == views["stopped"].PluginPID && views["stopped"].PluginPID == views["steady"].PluginPID &&
			views["plugkilled"].PluginPID == views["plugmate"].PluginPID && views["plugkilled"].PluginPID != views["steady"].PluginPID)

	var mu sync.Mutex
	stats := map[string]*faultStats{}
	for _, n := range names {
		stats[n] = &faultStats{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			c := sv.newClient()
			defer c.close(context.Background())
			if err := c.initialize(context.Background()); err != nil {
				mu.Lock()
				stats["steady"].lost++
				stats["steady"].firstLost = err.Error()
				mu.Unlock()
				return
			}
			for i := 0; ctx.Err() == nil; i++ {
				name := names[(w+i)%len(names)]
				token := fmt.Sprintf("w%d-c%d-%s", w, i, name)
				start := time.Now()
				callCtx, cancelCall := context.WithTimeout(context.Background(), 30*time.Second)
				o := c.call(callCtx, "mcp_"+name+"_echo", map[string]any{"text": token})
				cancelCall()
				mu.Lock()
				st := stats[name]
				st.sent++
				switch {
				case o.err != nil && isMismatch(o.err), o.failure() == "" && o.text != token:
					st.mismatched++
				case o.failure() == "":
					st.ok++
					st.okStarts = append(st.okStarts, start)
				case o.err == nil && strings.Contains(o.failure(), name):
					st.clear++
					if st.firstClear == "" {
						st.firstClear = o.failure()
					}
				default:
					st.lost++
					if st.firstLost == "" {
						st.firstLost = o.failure()
					}
				}
				mu.Unlock()
			}
		})
	}

	// The faults, spread over the run.
	step := dur / 5
	time.Sleep(step)
	killedAt := time.Now()
	killErr := syscall.Kill(views["killed"].ServerPID, syscall.SIGKILL)
	time.Sleep(step)
	plugKilledAt := time.Now()
	plugErr := syscall.Kill(views["plugkilled"].PluginPID, syscall.SIGKILL)
	time.Sleep(step)
	stopErr := syscall.Kill(views["stopped"].ServerPID, syscall.SIGSTOP)
	time.Sleep(min(step, 2*time.Second))
	contErr := syscall.Kill(views["stopped"].ServerPID, syscall.SIGCONT)
	wg.Wait()
	for what, err := range map[string]error{"kill -9 the server": killErr, "kill -9 the plugin": plugErr, "SIGSTOP": stopErr, "SIGCONT": contErr} {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}

	total := faultStats{}
	for _, n := range names {
		st := stats[n]
		total.sent += st.sent
		total.ok += st.ok
		total.clear += st.clear
		total.lost += st.lost
		total.mismatched += st.mismatched
		if total.firstLost == "" {
			total.firstLost = st.firstLost
		}
		if total.firstClear == "" {
			total.firstClear = st.firstClear
		}
	}
	s.check("fault", "calls", "lost 0, mismatched 0",
		fmt.Sprintf("sent %d, ok %d, clear error %d, lost %d, mismatched %d over %s with %d concurrent sessions%s",
			total.sent, total.ok, total.clear, total.lost, total.mismatched, dur, workers,
			ifNotEmpty("; a clear error: ", total.firstClear)+ifNotEmpty("; first lost: ", total.firstLost)),
		total.lost == 0 && total.mismatched == 0 && total.sent > 0)
	steady := stats["steady"]
	s.check("fault", "other server", "100% of calls ok",
		fmt.Sprintf("%d of %d ok (%.1f%%)", steady.ok, steady.sent, 100*float64(steady.ok)/float64(max(steady.sent, 1))),
		steady.ok == steady.sent && steady.sent > 0)
	after, err := sv.servers(context.Background())
	if err != nil {
		return err
	}
	for _, k := range []struct {
		name string
		at   time.Time
		what string
	}{{"killed", killedAt, "server kill -9"}, {"plugkilled", plugKilledAt, "plugin kill -9"}, {"plugmate", plugKilledAt, "plugin kill -9 (its other server)"}} {
		rec, ok := recovery(stats[k.name].okStarts, k.at)
		obs := "never recovered"
		if ok {
			obs = fmt.Sprintf("first ok call started %.2fs after the kill; %s restarted %d time(s), now %s",
				rec.Seconds(), k.name, after[k.name].Restarts, after[k.name].State)
		}
		s.check("fault", "recovery after "+k.what, "a call succeeds again within 10s", obs, ok && rec <= 10*time.Second)
	}
	st := stats["stopped"]
	s.check("fault", "SIGSTOP/SIGCONT server", "calls ok or a clear error; ok again after SIGCONT",
		fmt.Sprintf("sent %d, ok %d, clear %d, lost %d", st.sent, st.ok, st.clear, st.lost), st.lost == 0 && st.ok > 0)
	return nil
}

// recovery is the time from at to the start of the first successful call
// started after it.
func recovery(starts []time.Time, at time.Time) (time.Duration, bool) {
	for _, t := range starts {
		if t.After(at) {
			return t.Sub(at), true
		}
	}
	return 0, false
}

func ifNotEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + oneLine(s, 300)
}
