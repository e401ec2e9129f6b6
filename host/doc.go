// Package host is the plughost core, public so agents can embed it. A Host
// starts one transport plugin process per enabled MCP server (in parallel,
// each supervised and restarted on its own), registers every server tool under
// its `mcp_<server>_<tool>` name, and routes calls. Agents talk to it through
// Sessions:
//
//	loaded, err := config.Load(config.LoadOptions{Environ: os.Environ()}) // ~/.plughost/config.json and the layers
//	h, err := host.New(loaded.Config, host.Options{Environ: os.Environ()})
//	h.Start(ctx)
//	defer h.Close()
//	s := h.NewSession()
//	tools, err := s.Tools(ctx)
//	res, err := s.Call(ctx, "mcp_demo_echo", json.RawMessage(`{"text":"hi"}`))
//	fmt.Println(res.Text())
//
// ExampleNew runs the same steps (error checks included) as a test.
//
// Beyond tools, a session serves the rest of MCP for a client: Request
// answers resources, prompts, completion, logging and tasks (every server's,
// under plughost's names and URIs, or one server's as they are, for a
// session scoped to it), and what a server sends on its own — progress, log
// messages, sampling, elicitation and roots requests — is routed to the
// session that caused it, through its ClientHandlers:
//
//	s.SetHandlers(host.ClientHandlers{Sampling: askTheModel, Notify: show})
//
// Tool results are shaped (large text bounded and saved, see
// docs/result-shaping.md) and otherwise kept as the server sent them. A
// call answers with a ToolResult, whose items are plughost's own Content;
// ToolResult.JSON writes the result with every member the server sent but
// what shaping rewrote (docs/gateway.md, "Tool results"), and ToMCP
// converts it to mcp-go's types for code built on mcp-go. ToolResult is
// callresult.Result, the one type of the call path: the shaping chain's
// middleware (host/shaping) reads and rewrites the same value.
//
// A Host never forces process-wide garbage collections unless asked:
// Options.ReturnMemoryAfterLargeResults makes it return a large result's
// memory to the operating system right after the call, as the plughost
// binary does.
//
// Every front end (CLI, dashboard, gateway) drives the same Host.
package host
