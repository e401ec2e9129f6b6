//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host"
)

// A task's status notifications reach the session whose call created it,
// all of them and in the server's order, though the server announces the
// task before its answer names it: two sessions create tasks at once, each
// server call sending a status of its task (and one of a task nobody
// created) before answering, so nothing tells whose a status is until the
// answers arrive. What came before the answer goes on the creating call's
// own channel; a status of a task no call names reaches nobody.
func TestTaskStatusesReachTheCreatingSession(t *testing.T) {
	var announced sync.WaitGroup // both calls sent their first status
	announced.Add(2)
	s := &scripted{more: true, work: func(c *scriptedConn, id, params json.RawMessage) {
		var p struct{ Arguments struct{ Task string } }
		_ = json.Unmarshal(params, &p)
		status := func(state, msg string) {
			c.notify("notifications/tasks/status", `{"taskId":"`+p.Arguments.Task+`","status":"`+state+`","statusMessage":"`+msg+`"}`)
		}
		status("working", "1")
		c.notify("notifications/tasks/status", `{"taskId":"ghost","status":"working"}`)
		announced.Done()
		announced.Wait()
		status("working", "2")
		c.reply(id, `{"task":{"taskId":"`+p.Arguments.Task+`","status":"working"}}`)
		status("completed", "3")
	}}
	h := scriptedHost(t, s)
	got := map[string]chan string{"A": make(chan string, 16), "B": make(chan string, 16)}
	handlers := func(name, channel string) host.ClientHandlers {
		return host.ClientHandlers{Notify: func(n host.Notification) {
			if n.Method == "notifications/tasks/status" {
				got[name] <- channel + " " + string(n.Params)
			}
		}}
	}
	var calls sync.WaitGroup
	for _, name := range []string{"A", "B"} {
		sess := h.NewSession()
		sess.SetHandlers(handlers(name, "session"))
		own := handlers(name, "call")
		calls.Go(func() {
			args := json.RawMessage(`{"task":"t` + name + `"}`)
			res, err := sess.CallWith(context.Background(), "mcp_x_work", args, host.CallOptions{Task: json.RawMessage(`{}`), Handlers: &own})
			if err != nil || !strings.Contains(string(res.Task), `"x/t`+name+`"`) {
				t.Errorf("session %s's task call: %s, %v", name, res.Task, err)
			}
		})
	}
	calls.Wait()
	for _, name := range []string{"A", "B"} {
		var statuses []string
		for len(statuses) < 3 {
			select {
			case n := <-got[name]:
				if strings.Contains(n, "ghost") {
					t.Errorf("session %s got a status of a task nobody created: %s", name, n)
					continue
				}
				statuses = append(statuses, n)
			case <-time.After(10 * time.Second):
				t.Fatalf("session %s got %q; want 3 statuses of its task", name, statuses)
			}
		}
		task := `{"taskId":"x/t` + name + `","status":`
		want := []string{"call " + task + `"working","statusMessage":"1"}`, "call " + task + `"working","statusMessage":"2"}`}
		if diff := cmp.Diff(want, statuses[:2]); diff != "" {
			t.Errorf("session %s: the statuses sent before the answer (-want +got):\n%s", name, diff)
		}
		if !strings.HasSuffix(statuses[2], task+`"completed","statusMessage":"3"}`) {
			t.Errorf("session %s: the last status %s; want completed, 3", name, statuses[2])
		}
	}
}
