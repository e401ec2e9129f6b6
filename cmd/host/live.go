package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/registry"
)

// liveSource is where `mcp list|show`, `tools` and `call` get their answers:
// a running serve of the same config (through its API), else a host this
// command starts for the purpose.
type liveSource interface {
	Servers(ctx context.Context) (api.ServerList, error)
	Server(ctx context.Context, name string) (host.ServerDetail, error)
	Tools(ctx context.Context) ([]registry.Tool, error)
	Call(ctx context.Context, name string, args json.RawMessage) (host.CallResult, error)
	Approve(ctx context.Context, server string, req api.ApproveRequest) (api.ApproveResult, error)
	Close() error
}

// live returns the running serve of this config when there is one (and no
// --set changes the config), else starts a host and waits (up to wait) for
// its servers.
func (g *globals) live(ctx context.Context, wait time.Duration) (liveSource, error) {
	if c := g.runningServe(ctx); c != nil {
		return remoteSource{c}, nil
	}
	h, err := g.startHost(ctx, wait)
	if err != nil {
		return nil, err
	}
	return localSource{h}, nil
}

// runningServe returns a client of the serve of this config, or nil.
func (g *globals) runningServe(ctx context.Context) *api.Client {
	m := g.manager()
	home, _ := os.UserHomeDir()
	if m.HasSets() || home == "" {
		return nil
	}
	rt, ok := api.Find(home, m.UserFile())
	if !ok {
		return nil
	}
	c, st, err := api.Dial(ctx, rt)
	if err != nil {
		fmt.Fprintf(g.stderr, "plughost: a serve of this config is published (pid %d) but does not answer (%v); starting the servers here\n", rt.PID, err)
		return nil
	}
	fmt.Fprintf(g.stderr, "plughost: live state from plughost serve (pid %d, %s)\n", rt.PID, rt.URL)
	if !st.Apply.OK {
		fmt.Fprintf(g.stderr, "plughost: warning: serve kept its previous config; the current file was not applied: %s\n", st.Apply.Error)
	}
	return c
}

// localSource answers from a host this command started.
type localSource struct{ h *host.Host }

func (l localSource) Servers(ctx context.Context) (api.ServerList, error) {
	return api.ServerList{Servers: l.h.ServerRows(ctx), Apply: l.h.LastApply()}, nil
}

func (l localSource) Server(ctx context.Context, name string) (host.ServerDetail, error) {
	return l.h.ServerDetail(ctx, name)
}

func (l localSource) Tools(ctx context.Context) ([]registry.Tool, error) {
	return l.h.NewSession().Tools(ctx)
}

func (l localSource) Call(ctx context.Context, name string, args json.RawMessage) (host.CallResult, error) {
	return l.h.NewSession().CallWith(ctx, name, args, host.CallOptions{})
}

// Approve approves in the host this command started: the pins it writes
// (the pins file, or Redis) reach every serve of the same config.
func (l localSource) Approve(ctx context.Context, server string, req api.ApproveRequest) (api.ApproveResult, error) {
	tools := req.Tools
	if req.All {
		tools = nil
	}
	approved, err := l.h.Approve(ctx, server, tools, req.Via)
	if err != nil {
		return api.ApproveResult{}, err
	}
	return api.ApproveResult{Server: server, Approved: approved, Quarantined: l.h.Quarantined(server)}, nil
}

func (l localSource) Close() error { return l.h.Close() }

// remoteSource answers from a running serve.
type remoteSource struct{ *api.Client }

func (remoteSource) Close() error { return nil }
