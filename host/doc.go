// Package host is the plughost core, public so agents can embed it. A Host
// starts one transport plugin process per enabled MCP server (in parallel,
// each supervised and restarted on its own), registers every server tool under
// its `mcp_<server>_<tool>` name, and routes calls. Agents talk to it through
// Sessions:
//
//	h, err := host.New(cfg, host.Options{Environ: os.Environ()})
//	h.Start(ctx)
//	defer h.Close()
//	s := h.NewSession()
//	tools := s.Tools()
//	res, err := s.Call(ctx, "mcp_demo_echo", json.RawMessage(`{"text":"hi"}`))
//
// Every front end (CLI, dashboard, gateway) drives the same Host.
package host
