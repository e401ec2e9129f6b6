// Command client is plughost's adapter for the client scenarios of the
// official MCP conformance suite (npm @modelcontextprotocol/conformance):
//
//	conformance client --command "<dir>/client" --suite auth
//
// The suite appends the scenario server's URL to the command, names the
// scenario in MCP_CONFORMANCE_SCENARIO, and passes scenario data (a
// pre-registered client's id and secret) as JSON in MCP_CONFORMANCE_CONTEXT.
//
// The adapter is a real MCP client through plughost: it configures the URL
// as an http server with "oauth", runs a host.Host with the transport
// plugins found in <dir>/plugins, connects, lists the tools and calls each
// one. Logins happen the way a user would do them, headlessly: whenever the
// server needs a login, the "browser" opens the authorization URL and
// follows the authorization server's redirect to plughost's loopback
// callback. It logs in at most three times, and stops early when a new login
// would ask for no more scope than the last one got.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/conformance/play"
	"github.com/plughost/plughost/oauth/tokens"
)

// serverName is the scenario server's name in the config.
const serverName = "scenario"

// clientMetadataURL is the client ID metadata document URL the suite's
// basic-cimd scenario expects (it need not resolve).
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// maxLogins bounds the logins of one run (the suite's retry limit is 3).
const maxLogins = 3

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

// scenarioContext is the MCP_CONFORMANCE_CONTEXT the adapter uses.
type scenarioContext struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	plugins := fs.String("plugins", "", "transport plugin dir (default: plugins/ beside this executable)")
	timeout := fs.Duration("timeout", 25*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: client [--plugins DIR] [--timeout D] <server-url>")
	}
	if *plugins == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		*plugins = filepath.Join(filepath.Dir(exe), "plugins")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	tmp, err := os.MkdirTemp("", "plughost-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	h, err := newHost(fs.Arg(0), *plugins, tmp, stderr)
	if err != nil {
		return err
	}
	defer h.Close()
	h.Start(ctx)
	a := &adapter{h: h, out: stdout}
	return a.exercise(ctx)
}

// newHost configures the server URL as an http server with oauth.
func newHost(url, plugins, dir string, stderr io.Writer) (*host.Host, error) {
	oauth := map[string]any{"client_metadata_url": clientMetadataURL}
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		var sc scenarioContext
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
		if sc.ClientID != "" {
			oauth["client_id"], oauth["client_secret"] = sc.ClientID, sc.ClientSecret
		}
	}
	doc, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true,
		"servers": map[string]any{serverName: map[string]any{"enabled": true, "type": "http", "url": url, "oauth": oauth}},
		"restart": map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
	}}})
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "config.json"), UserData: doc, AllowMissing: true,
		SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		return nil, err
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "plughost", Level: hclog.Info, Output: stderr})
	return host.NewFromLoaded(l, host.Options{ConfigDir: dir, Environ: os.Environ(), PluginDirs: []string{plugins},
		Logger: logger, Version: "conformance", TokenStore: tokens.FileStore{Dir: filepath.Join(dir, "oauth")}})
}

// adapter drives one scenario.
type adapter struct {
	h         *host.Host
	out       io.Writer
	logins    int
	lastScope []string // what the last login asked for
}

// exercise connects, then calls every tool, logging in when asked.
func (a *adapter) exercise(ctx context.Context) error {
	if err := a.connect(ctx); err != nil {
		return err
	}
	tools := a.h.ServerTools(serverName)
	fmt.Fprintf(a.out, "connected: %d tools\n", len(tools))
	s := a.h.NewSession()
	s.SetHandlers(a.handlers())
	for _, t := range tools {
		for {
			res, err := s.Call(ctx, t.Name, play.SampleArguments(t.InputSchema))
			if err == nil {
				fmt.Fprintf(a.out, "called %s: error=%v\n", t.ServerTool, res.IsError)
				break
			}
			if !a.needsLogin() {
				return fmt.Errorf("call %s: %w", t.ServerTool, err)
			}
			if lerr := a.login(ctx); lerr != nil {
				return fmt.Errorf("call %s: %w (%v)", t.ServerTool, err, lerr)
			}
		}
	}
	return nil
}

// handlers play the user and the model behind the client: an elicitation
// form is accepted as pre-filled with its defaults (a URL elicitation is
// declined: there is no browser session to finish it), a sampling request
// gets a fixed answer, and the client has no roots.
func (a *adapter) handlers() host.ClientHandlers {
	return host.ClientHandlers{
		Elicitation: func(_ context.Context, r host.ServerRequest) (json.RawMessage, error) {
			var p struct {
				Mode string `json:"mode"`
			}
			_ = json.Unmarshal(r.Params, &p)
			if p.Mode == "url" {
				return json.RawMessage(`{"action":"decline"}`), nil
			}
			content, err := host.FormDefaults(r.Params)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(a.out, "elicitation from %s: accepted with %s\n", r.Server, content)
			return json.Marshal(map[string]any{"action": "accept", "content": content})
		},
		Sampling: func(context.Context, host.ServerRequest) (json.RawMessage, error) {
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"a reply from the conformance adapter"},"model":"conformance-adapter","stopReason":"endTurn"}`), nil
		},
		Roots: func(context.Context, host.ServerRequest) (json.RawMessage, error) {
			return json.RawMessage(`{"roots":[]}`), nil
		},
	}
}

// connect waits until the server is connected, logging in when it needs.
func (a *adapter) connect(ctx context.Context) error {
	for {
		st, err := a.settled(ctx)
		if err != nil {
			return err
		}
		switch st.State {
		case supervisor.StateConnected:
			return nil
		case supervisor.StateNeedsLogin:
			if err := a.login(ctx); err != nil {
				return err
			}
		default:
			return fmt.Errorf("server %s: %s", st.State, st.LastError)
		}
	}
}

// settled waits for a state other than connecting (and, right after a
// login, other than the needs-login state it answered).
func (a *adapter) settled(ctx context.Context) (supervisor.Status, error) {
	for {
		changed := a.h.Changed()
		st, _ := a.h.Status(serverName)
		if st.State != supervisor.StateConnecting && !(st.State == supervisor.StateNeedsLogin && st.Auth != nil && !st.Auth.NeedsLogin) {
			return st, nil
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond): // the login state is not a host change
		case <-ctx.Done():
			return st, fmt.Errorf("server still %s: %w", st.State, ctx.Err())
		}
	}
}

func (a *adapter) needsLogin() bool {
	st, ok := a.h.AuthStatus(context.Background(), serverName)
	return ok && st.NeedsLogin
}

// login logs in headlessly, within the retry limit.
func (a *adapter) login(ctx context.Context) error {
	st, _ := a.h.AuthStatus(ctx, serverName)
	switch {
	case a.logins >= maxLogins:
		return fmt.Errorf("still refused after %d logins (%s); giving up", a.logins, st.Reason)
	case a.logins > 0 && len(st.WantScopes) > 0 && slices.Equal(st.WantScopes, a.lastScope):
		return fmt.Errorf("the server wants scope %v again, which the last login asked for (%s); another login would not help", st.WantScopes, st.Reason)
	}
	a.logins++
	a.lastScope = st.WantScopes
	done, err := a.h.Login(ctx, serverName, tokens.LoginOptions{Prompt: play.Browse})
	if err != nil {
		return err
	}
	if len(a.lastScope) == 0 {
		a.lastScope = done.Scopes
	}
	fmt.Fprintf(a.out, "logged in (login %d, scopes %v)\n", a.logins, done.Scopes)
	return nil
}
