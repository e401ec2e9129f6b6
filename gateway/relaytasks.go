package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/plughost/plughost/host"
)

// tasks/list across replicas. The host gathers a session's tasks from the
// replicas its record names (host.SessionRecord.TaskReplicas); the
// gateway asks each of them over the relay, directly on its channel, and
// that replica answers with the tasks of the session it holds
// (host.Session.LocalTasks), as the response of a relayed request: one
// PUBLISH each way, a sign of life every relayBeatEvery while its servers
// list.

// relayListID is the JSON-RPC id of a task list's response.
const relayListID = "0"

// tasksOn asks replica for the tasks of session it holds
// (host.TasksElsewhere).
func (g *Gateway) tasksOn(ctx context.Context, session, replica string) (host.TaskList, error) {
	rid, w := g.rs.wait(nil)
	defer g.rs.unwait(rid)
	delivered, err := g.rs.relay.Send(ctx, replica, relayEnvelope(relayTasks, []string{g.rs.replica, rid, session}, nil))
	if err != nil {
		return host.TaskList{}, err
	}
	if !delivered {
		return host.TaskList{}, host.ErrReplicaUnreachable
	}
	resp, err := g.awaitRelayed(ctx, replica, rid, w)
	if err != nil {
		return host.TaskList{}, err
	}
	raw, err := relayResult(resp, "replica "+replica)
	if err != nil {
		return host.TaskList{}, err
	}
	var list host.TaskList
	if err := json.Unmarshal(raw, &list); err != nil {
		return host.TaskList{}, fmt.Errorf("replica %s answered with a malformed task list: %w", replica, err)
	}
	return list, nil
}

// serveTasks answers another replica's tasksOn: the tasks of session held
// here.
func (g *Gateway) serveTasks(ctx context.Context, from, rid, session string) {
	ctx, done := g.rs.serving(ctx, from, rid)
	defer done()
	out := &relaySink{g: g, ctx: ctx, to: from, rid: rid}
	go out.beat(ctx)
	list, err := g.localTasks(ctx, session)
	if err != nil {
		out.respond(encodeError(json.RawMessage(relayListID), asRPCError(err)))
		return
	}
	res, err := json.Marshal(list)
	if err != nil {
		out.respond(encodeError(json.RawMessage(relayListID), asRPCError(err)))
		return
	}
	out.respond(encodeResult(json.RawMessage(relayListID), res))
}

// localTasks lists the tasks of session held here; a session that ended
// has none.
func (g *Gateway) localTasks(ctx context.Context, session string) (host.TaskList, error) {
	sess, _, err := g.h.OpenSession(ctx, session)
	if errors.Is(err, host.ErrSessionNotFound) {
		return host.TaskList{Tasks: []host.ListedTask{}}, nil
	}
	if err != nil {
		return host.TaskList{}, err
	}
	return sess.LocalTasks(ctx)
}
