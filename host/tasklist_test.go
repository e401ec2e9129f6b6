//go:build unix

package host_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plughost/plughost/host"
)

// tasks/list pages in creation order (then id), whatever order the
// replicas answered in, and a cursor holds when tasks come and go between
// pages.
func TestTaskPages(t *testing.T) {
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	task := func(id string, sec int) host.ListedTask {
		return host.ListedTask{Created: at.Add(time.Duration(sec) * time.Second), Task: json.RawMessage(fmt.Sprintf(`{"taskId":%q,"status":"working"}`, id))}
	}
	// c and b were created at the same moment: the id orders them.
	all := []host.ListedTask{task("d", 3), task("c", 2), task("a", 1), task("b", 2), task("e", 4)}
	page := func(t *testing.T, tasks []host.ListedTask, cursor string) (ids []string, next string) {
		t.Helper()
		raw, err := host.TaskPage(host.TaskList{Tasks: tasks}, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Tasks      []struct{ TaskID string }
			NextCursor string
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		for _, task := range p.Tasks {
			ids = append(ids, task.TaskID)
		}
		return ids, p.NextCursor
	}
	t.Run("in order, two a page", func(t *testing.T) {
		var got [][]string
		cursor := ""
		for {
			ids, next := page(t, all, cursor)
			got = append(got, ids)
			if cursor = next; cursor == "" {
				break
			}
		}
		if diff := cmp.Diff([][]string{{"a", "b"}, {"c", "d"}, {"e"}}, got); diff != "" {
			t.Errorf("pages (-want +got):\n%s", diff)
		}
	})
	t.Run("the cursor's task gone, a task added before it", func(t *testing.T) {
		_, cursor := page(t, all, "")
		changed := []host.ListedTask{task("0", 0), task("a", 1), task("c", 2), task("d", 3), task("e", 4)} // b gone, 0 added
		if ids, _ := page(t, changed, cursor); !cmp.Equal(ids, []string{"c", "d"}) {
			t.Errorf("the page after b, b gone: %v; want [c d]", ids)
		}
	})
	t.Run("a cursor no answer gave", func(t *testing.T) {
		for _, cursor := range []string{"!", "bm8tc3BhY2U", "eDEgaWQ"} {
			if _, err := host.TaskPage(host.TaskList{Tasks: all}, cursor, 2); err == nil {
				t.Errorf("cursor %q: no error", cursor)
			}
		}
	})
	t.Run("what is missing is said", func(t *testing.T) {
		raw, _ := host.TaskPage(host.TaskList{Tasks: all, Missing: []string{"the tasks held by replica r1, which is gone"}}, "", 10)
		var p struct {
			Meta map[string]string `json:"_meta"`
		}
		if err := json.Unmarshal(raw, &p); err != nil || p.Meta["plughost/partial"] != "this list lacks the tasks held by replica r1, which is gone" {
			t.Errorf("a list lacking a replica's tasks: %s", raw)
		}
	})
}
