package host

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plughost/plughost/lib/rawjson"
)

// tasks/list. A task lives on the replica whose upstream connection
// created it, so with replicas sharing the store a session's tasks may be
// spread over several. The session's record names them
// (SessionRecord.TaskReplicas: a replica adds itself before the first
// task-augmented call of the session it sends upstream), and tasks/list
// gathers the session's tasks from each: this process's from its servers,
// the others' through the front end (SetTasksElsewhere), which has each of
// them list its own. Every replica asks its servers at the time, so the
// statuses are current, and keeps only the tasks the session created, so
// a session never sees another's. The merged list is in the order the
// session created the tasks and is paged: a page's cursor names the last
// task it holds (creation time and id), so a task added or gone between
// pages neither repeats nor shifts another.

// DefaultTaskListPage is the most tasks one tasks/list answer holds when
// Options.TaskListPage is 0.
const DefaultTaskListPage = 100

// maxTaskReplicas bounds SessionRecord.TaskReplicas: past it the oldest
// replica (most likely replaced by a rollout since) is forgotten.
const maxTaskReplicas = 64

// partialKey is the _meta key of a tasks/list answer that lacks some of
// the session's tasks, saying which and why.
const partialKey = "plughost/partial"

// ListedTask is a task of a session as tasks/list gives it.
type ListedTask struct {
	// Created is when the session created it: the order of the list.
	Created time.Time `json:"created"`
	// Task is the task (taskId, status, …), its id as the session's client
	// knows it.
	Task json.RawMessage `json:"task"`
}

// TaskList is the tasks of a session one replica holds.
type TaskList struct {
	Tasks []ListedTask `json:"tasks"`
	// Missing says, for people, what could not be listed (a server that
	// failed to list its tasks).
	Missing []string `json:"missing,omitempty"`
}

// ErrReplicaUnreachable is the error of a TasksElsewhere function for a
// replica that did not get the request: it stopped (its tasks ended with
// its upstream connections) or lost the store.
var ErrReplicaUnreachable = errors.New("not connected to the session store (it stopped, and its tasks with it, or lost the store)")

// TasksElsewhere lists the tasks of a session that another replica holds
// (that replica's Session.LocalTasks). It fails with an error wrapping
// ErrReplicaUnreachable when the replica did not get the request.
type TasksElsewhere func(ctx context.Context, session, replica string) (TaskList, error)

// SetTasksElsewhere sets how tasks/list reaches the tasks of a session
// that other replicas hold (see SessionRecord.TaskReplicas). Without it
// tasks/list lists this process's alone. Set it once, before serving.
func (h *Host) SetTasksElsewhere(fn TasksElsewhere) { h.tasksElsewhere.Store(&fn) }

// LocalTasks returns the tasks of the session this process holds, from
// every server of its scope that lists tasks; a server that fails is left
// out, and named in Missing.
func (s *Session) LocalTasks(ctx context.Context) (TaskList, error) {
	scope, _, err := s.access(ctx)
	if err != nil {
		return TaskList{}, err
	}
	list := TaskList{Tasks: []ListedTask{}}
	for _, server := range s.h.st().order {
		if scope != "" && server != scope {
			continue
		}
		if c, ok := s.h.serverCaps(server); !ok || c.Tasks == nil || c.Tasks.List == nil {
			continue
		}
		items, err := s.h.router.ListAll(ctx, server, "tasks/list", "tasks")
		if err != nil {
			s.h.router.Logger().Warn("listing tasks failed; leaving the server out", "server", server, "error", err)
			list.Missing = append(list.Missing, fmt.Sprintf("the tasks of server %q: listing them failed: %v", server, s.h.masker.Error(err)))
			continue
		}
		for _, it := range items {
			id, _ := rawjson.String(it, "taskId")
			rec, mine := s.h.router.OwnedTask(s.id, server, id)
			if !mine {
				continue
			}
			if clientID := s.h.router.ClientTaskIDFor(scope, server, id); clientID != id {
				it, _ = rawjson.Replace(it, quote(clientID), "taskId")
			}
			list.Tasks = append(list.Tasks, ListedTask{Created: rec.Created().Round(0), Task: it}) // wall clock alone: compared with other replicas'
		}
	}
	return list, nil
}

// listTasks answers tasks/list: a page of the session's tasks on every
// replica, from the cursor params name.
func (s *Session) listTasks(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var after *taskCursor
	if c, ok := rawjson.String(params, "cursor"); ok {
		cur, err := parseTaskCursor(c)
		if err != nil {
			return nil, &RPCError{Code: codeInvalidParams, Message: "tasks/list: " + err.Error()}
		}
		after = &cur
	}
	all, err := s.allTasks(ctx)
	if err != nil {
		return nil, fmt.Errorf("tasks/list: %w", err)
	}
	return taskPage(all, after, s.h.opts.TaskListPage), nil
}

// allTasks gathers the session's tasks here and on the other replicas its
// record names, asked at once.
func (s *Session) allTasks(ctx context.Context) (TaskList, error) {
	var others []string
	fn := s.h.tasksElsewhere.Load()
	if fn != nil {
		st, err := s.State(ctx)
		if err != nil {
			return TaskList{}, err
		}
		self := s.h.router.Replica()
		others = slices.DeleteFunc(st.TaskReplicas, func(r string) bool { return r == self })
	}
	lists := make([]TaskList, len(others)+1)
	errs := make([]error, len(others)+1)
	var wg sync.WaitGroup
	for i, replica := range others {
		wg.Go(func() { lists[i+1], errs[i+1] = (*fn)(ctx, s.id, replica) })
	}
	lists[0], errs[0] = s.LocalTasks(ctx)
	wg.Wait()
	var all TaskList
	var gone []string
	for i, l := range lists {
		switch {
		case i > 0 && errors.Is(errs[i], ErrReplicaUnreachable):
			all.Missing = append(all.Missing, fmt.Sprintf("the tasks held by replica %s, which is %v", others[i-1], errs[i]))
			gone = append(gone, others[i-1])
			continue
		case errs[i] != nil && i > 0:
			return TaskList{}, fmt.Errorf("listing the tasks held by replica %s: %w", others[i-1], errs[i])
		case errs[i] != nil:
			return TaskList{}, errs[i]
		}
		all.Tasks = append(all.Tasks, l.Tasks...)
		all.Missing = append(all.Missing, l.Missing...)
	}
	s.forgetTaskReplicas(ctx, gone)
	return all, nil
}

// forgetTaskReplicas drops replicas that did not get a tasks/list request
// from the session's record, so that the answers after this one (which
// says what is missing) do not ask them again: after a rollout the old
// replicas are gone, and their tasks with them. A replica that had only
// lost the store records itself again with its next task. A failure is
// logged: the list was answered.
func (s *Session) forgetTaskReplicas(ctx context.Context, gone []string) {
	if len(gone) == 0 {
		return
	}
	_, err := s.update(ctx, func(st *SessionRecord) error {
		kept := slices.DeleteFunc(slices.Clone(st.TaskReplicas), func(r string) bool { return slices.Contains(gone, r) })
		if len(kept) == len(st.TaskReplicas) {
			return ErrSessionUnchanged
		}
		st.TaskReplicas = kept
		return nil
	})
	if err != nil {
		s.h.router.Logger().Warn("forgetting replicas that hold no tasks of the session failed", "replicas", gone, "error", err)
	}
}

// taskPage is the tasks/list answer holding the tasks of all after the
// cursor (all of them for nil), at most size (0: DefaultTaskListPage),
// with the cursor of the next page when more follow, and what is missing
// from the list.
func taskPage(all TaskList, after *taskCursor, size int) json.RawMessage {
	slices.SortFunc(all.Tasks, func(a, b ListedTask) int { return cursorOf(a).compare(cursorOf(b)) })
	tasks := all.Tasks
	if after != nil {
		i, found := slices.BinarySearchFunc(tasks, *after, func(t ListedTask, c taskCursor) int { return cursorOf(t).compare(c) })
		if found {
			i++
		}
		tasks = tasks[i:]
	}
	if size <= 0 {
		size = DefaultTaskListPage
	}
	next := ""
	if len(tasks) > size {
		tasks = tasks[:size]
		next = cursorOf(tasks[size-1]).String()
	}
	var b strings.Builder
	b.WriteString(`{"tasks":[`)
	for i, t := range tasks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t.Task)
	}
	b.WriteByte(']')
	if next != "" {
		b.WriteString(`,"nextCursor":`)
		b.Write(quote(next))
	}
	if len(all.Missing) > 0 {
		b.WriteString(`,"_meta":{`)
		b.Write(quote(partialKey))
		b.WriteByte(':')
		b.Write(quote("this list lacks " + strings.Join(all.Missing, "; ")))
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// taskCursor names a task in the order of tasks/list: the last of a page.
type taskCursor struct {
	created time.Time
	id      string
}

func cursorOf(t ListedTask) taskCursor {
	id, _ := rawjson.String(t.Task, "taskId")
	return taskCursor{created: t.Created, id: id}
}

// compare orders tasks by creation, then id.
func (c taskCursor) compare(d taskCursor) int {
	return cmp.Or(c.created.Compare(d.created), strings.Compare(c.id, d.id))
}

// String encodes the cursor: opaque to clients.
func (c taskCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.created.UnixNano(), 10) + " " + c.id))
}

func parseTaskCursor(s string) (taskCursor, error) {
	bad := fmt.Errorf("cursor %q is not one a tasks/list answer gave", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return taskCursor{}, bad
	}
	ns, id, ok := strings.Cut(string(raw), " ")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil {
		return taskCursor{}, bad
	}
	return taskCursor{created: time.Unix(0, n), id: id}, nil
}

// noteTaskReplica records in the session that this replica may hold tasks
// of it, before a task-augmented call creates one, so that tasks/list on
// any replica asks this one; nothing with one replica, nothing more once
// recorded.
func (s *Session) noteTaskReplica(ctx context.Context) error {
	self := s.h.router.Replica()
	if self == "" {
		return nil
	}
	st, err := s.State(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(st.TaskReplicas, self) {
		return nil
	}
	_, err = s.update(ctx, func(st *SessionRecord) error {
		if slices.Contains(st.TaskReplicas, self) {
			return ErrSessionUnchanged
		}
		st.TaskReplicas = append(st.TaskReplicas, self)
		if n := len(st.TaskReplicas); n > maxTaskReplicas {
			st.TaskReplicas = st.TaskReplicas[n-maxTaskReplicas:]
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording that this replica holds tasks of the session: %w", err)
	}
	return nil
}
