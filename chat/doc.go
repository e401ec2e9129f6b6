// Package chat is plughost's own agent: a conversation with any
// OpenAI-compatible chat-completions model whose tools are a host.Session's
// (`plughost chat`). It is a front end of the host, like the gateway: the
// tools the model sees follow the discovery settings, search tools unlock
// tools for a number of model rounds (Session.EndTurn once per round),
// results are shaped as for any agent and saved artifacts are read with
// read_file and search_files.
//
// One job per file: client.go and stream.go speak the chat-completions
// API, endpoint.go explains its failures; agent.go runs the bounded loop,
// calls.go runs one round's tool calls concurrently, budget.go keeps the
// conversation within the context budget; events.go is what the loop
// reports, transcript.go writes it as JSONL and render.go shows it on a
// terminal; repl.go is the interactive mode and lineedit.go its line
// editor.
package chat
