package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plughost/plughost/host"
)

// callWithLogin calls the tool; when its OAuth server wants a new login
// (not logged in any more, or a step-up: HTTP 403 insufficient_scope, and
// the login would ask for more than it got) and plughost can ask the user,
// it offers that login — with the wider scope — runs it and calls once
// more. Without a terminal, or declined, the call fails with the
// *host.NeedsLoginError, which names `plughost mcp login <server>` and the
// scope.
func (g *globals) callWithLogin(ctx context.Context, src liveSource, tool string, args []byte) (host.CallResult, error) {
	r, err := src.Call(ctx, tool, args)
	var needs *host.NeedsLoginError
	if !errors.As(err, &needs) || needs.Futile || !interactive() {
		return r, err
	}
	fmt.Fprintf(g.stderr, "plughost: server %q needs login: %s.\n", needs.Server, needs.Reason)
	question := fmt.Sprintf("Log in to %s again", needs.Server)
	if len(needs.Scopes) > 0 {
		question += " with scope " + strings.Join(needs.Scopes, " ")
	}
	if !confirm(g.stderr, question+"? (the browser opens)", true) {
		return r, err
	}
	if lerr := g.loginFor(ctx, src, needs.Server); lerr != nil {
		return r, fmt.Errorf("%w; logging in failed: %w", err, lerr)
	}
	return src.Call(ctx, tool, args)
}

// loginFor logs in to server for a call made through src: in the host of
// this command, whose connection then uses the new token at once, or — when
// a running serve answers — in a host of the config for the login alone;
// the serve reads the stored tokens when the server next refuses the old
// ones. The login's messages go to stderr: stdout is the call's result.
func (g *globals) loginFor(ctx context.Context, src liveSource, server string) error {
	ui := loginUI{out: g.stderr, timeout: defaultLoginTimeout}
	if l, ok := src.(localSource); ok {
		return g.login(ctx, l.h, server, ui)
	}
	h, err := g.newHost()
	if err != nil {
		return err
	}
	defer h.Close()
	return g.login(ctx, h, server, ui)
}
