package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/plughost/plughost/chat"
	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/lib/termsafe"
)

// chatFlags are plughost chat's flags.
type chatFlags struct {
	prompt, baseURL, model, keyEnv, system, transcript string
	asJSON, noStream, noTranscript                     bool
	maxTurns, contextTokens                            int
	callTimeout, requestTimeout, wait                  time.Duration
}

func newChatCommand(g *globals) *cobra.Command {
	f := &chatFlags{}
	cmd := &cobra.Command{
		Use:   "chat [-p PROMPT]",
		Short: "Talk to an OpenAI-compatible model that uses your servers' tools",
		Long: `Talk to a model through any OpenAI-compatible chat-completions endpoint (Ollama's on
this machine by default), with the tools of your servers as an agent sees them: discovery,
unlocks for a few model rounds, bounded results and their saved files.

Without -p it is interactive (/help lists the commands; Ctrl-C cancels the running request
or tool call, a second Ctrl-C exits). With -p it answers one prompt and exits: 0 when the
model answered, 1 otherwise. Every chat is written to a JSONL transcript.`,
		Example: `  plughost chat --model llama3.2
  plughost chat -p "What time is it in Tokyo?" --model qwen2.5
  OPENAI_API_KEY=… plughost chat --base-url https://api.openai.com/v1 --model gpt-4o-mini --api-key-env OPENAI_API_KEY
  plughost chat -p "…" --json      # one JSON event per line`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runChat(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.prompt, "prompt", "p", "", "answer this one prompt and exit")
	fl.BoolVar(&f.asJSON, "json", false, "with -p: print one JSON event per line (text, tool calls, results, unlocks, usage …)")
	fl.StringVar(&f.baseURL, "base-url", "", "the API root (default chat.base_url, else "+config.DefaultChatBaseURL+")")
	fl.StringVar(&f.model, "model", "", "the model (default chat.model)")
	fl.StringVar(&f.keyEnv, "api-key-env", "", "the NAME of the environment variable holding the API key (default chat.api_key_env); never the key")
	fl.StringVar(&f.system, "system", "", "the system prompt (default: one explaining the tools)")
	fl.IntVar(&f.maxTurns, "max-turns", chat.DefaultMaxTurns, "model rounds one message may take")
	fl.IntVar(&f.contextTokens, "context-tokens", chat.DefaultContextTokens, "context budget in estimated tokens: past it the oldest tool results are summarised, then the oldest exchanges dropped")
	fl.DurationVar(&f.callTimeout, "call-timeout", 0, "bound of each tool call (0: tools.mcp.timeouts.call_seconds)")
	fl.DurationVar(&f.requestTimeout, "request-timeout", 10*time.Minute, "bound of each model request")
	fl.BoolVar(&f.noStream, "no-stream", false, "ask for whole answers instead of a stream")
	fl.StringVar(&f.transcript, "transcript", "", "transcript file, or a directory for a new file (default ~/.plughost/chats/)")
	fl.BoolVar(&f.noTranscript, "no-transcript", false, "write no transcript")
	addWaitFlag(cmd, &f.wait)
	return cmd
}

// envVarName is what --api-key-env accepts.
var envVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func runChat(cmd *cobra.Command, g *globals, f *chatFlags) error {
	if f.asJSON && f.prompt == "" {
		return usagef("--json goes with -p (the interactive mode is for people)")
	}
	if f.maxTurns < 1 || f.contextTokens < 1 {
		return usagef("--max-turns and --context-tokens must be at least 1")
	}
	l, err := g.loadConfig()
	if err != nil {
		return err
	}
	ep, err := chatEndpoint(f, l.Config.Chat)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM)
	defer stop()
	h, err := g.hostFor(l)
	if err != nil {
		return err
	}
	defer h.Close()
	masker := h.Masker()
	masker.Add(ep.keyEnv, ep.key.Reveal())
	h.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, f.wait)
	_ = h.WaitSettled(wctx) // servers still connecting come later, through list changes
	cancel()
	tr, err := openTranscript(f, masker)
	if err != nil {
		return err
	}
	if tr != nil {
		defer tr.Close()
	}
	client := &chat.Client{BaseURL: ep.baseURL, Model: ep.model, Key: ep.key, KeyEnv: ep.keyEnv,
		Stream: !f.noStream, Masker: masker, HTTP: &http.Client{Timeout: f.requestTimeout}}
	opts := chat.Options{System: f.system, MaxTurns: f.maxTurns, CallTimeout: f.callTimeout,
		ContextTokens: f.contextTokens, UnlockTurns: l.Config.MCP.Discovery.TTL}
	if f.prompt != "" {
		return chatOnce(ctx, g, h, client, opts, f, tr, masker)
	}
	return chatInteractive(ctx, g, h, client, opts, tr, masker, ep)
}

// endpoint is the model endpoint a chat uses.
type endpoint struct {
	baseURL, model, keyEnv string
	key                    secret.String
}

// chatEndpoint merges the flags over the config's chat section and reads
// the key from its variable.
func chatEndpoint(f *chatFlags, c config.Chat) (endpoint, error) {
	ep := endpoint{baseURL: pick(f.baseURL, c.BaseURL, config.DefaultChatBaseURL), model: pick(f.model, c.Model), keyEnv: pick(f.keyEnv, c.APIKeyEnv)}
	if ep.model == "" {
		return ep, usagef("no model: pass --model NAME or set chat.model in the config (for Ollama, `ollama list` shows yours)")
	}
	if ep.keyEnv == "" {
		return ep, nil
	}
	if !envVarName.MatchString(ep.keyEnv) {
		return ep, usagef("--api-key-env takes the NAME of an environment variable holding the key (letters, digits, _), never the key itself: export KEY_NAME=… and pass --api-key-env KEY_NAME")
	}
	v, ok := os.LookupEnv(ep.keyEnv)
	if !ok || v == "" {
		return ep, fmt.Errorf("the API key variable $%s (--api-key-env / chat.api_key_env) is unset or empty: export it first", ep.keyEnv)
	}
	ep.key = secret.String(v)
	return ep, nil
}

func pick(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// openTranscript opens the chat's transcript (nil with --no-transcript).
func openTranscript(f *chatFlags, m *secret.Masker) (*chat.Transcript, error) {
	if f.noTranscript {
		return nil, nil
	}
	path := f.transcript
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("transcript: no home directory (%v); pass --transcript or --no-transcript", err)
		}
		path = filepath.Join(home, ".plughost", "chats")
	}
	return chat.OpenTranscript(path, m)
}

// chatOnce answers one prompt: the answer on stdout (or every event with
// --json), the activity on stderr.
func chatOnce(ctx context.Context, g *globals, h *host.Host, client *chat.Client, opts chat.Options, f *chatFlags, tr *chat.Transcript, m *secret.Masker) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	var shown chat.Observer = chat.NewActivity(g.stderr, m)
	if f.asJSON {
		shown = chat.NewJSONLines(g.stdout, m)
	}
	a := chat.New(h, client, opts, chat.NewObservers(shown, transcriptObserver(tr)))
	defer a.Close(context.WithoutCancel(ctx))
	answer, err := a.Ask(ctx, f.prompt)
	if err != nil {
		return terminalError{err} // it may quote the endpoint or a server
	}
	if !f.asJSON {
		chat.WriteAnswer(g.stdout, m, answer)
	}
	return nil
}

// transcriptObserver is tr as an Observer (nil for none).
func transcriptObserver(tr *chat.Transcript) chat.Observer {
	if tr == nil {
		return nil
	}
	return tr
}

// chatInteractive runs the interactive mode on the terminal (or on lines
// piped to stdin).
func chatInteractive(ctx context.Context, g *globals, h *host.Host, client *chat.Client, opts chat.Options, tr *chat.Transcript, m *secret.Masker, ep endpoint) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	interrupts := make(chan struct{}, 4)
	go forwardInterrupts(ctx, sigs, interrupts)
	a := chat.New(h, client, opts, chat.NewObservers(chat.NewTerminal(g.stdout, m), transcriptObserver(tr)))
	defer a.Close(context.WithoutCancel(ctx))
	var in chat.LineReader = chat.NewScanLines(os.Stdin)
	if fd := int(os.Stdin.Fd()); term.IsTerminal(fd) {
		in = chat.NewTermLines(os.Stdin, g.stdout, "> ")
		if state, err := term.GetState(fd); err == nil {
			defer term.Restore(fd, state) // leaving mid-line (SIGTERM) must not leave it raw
		}
	}
	fmt.Fprintf(g.stdout, "plughost chat: model %s at %s. /help lists the commands; Ctrl-C cancels, twice exits.\n", ep.model, m.Mask(ep.baseURL))
	if tr != nil {
		fmt.Fprintf(g.stdout, "Transcript: %s\n", tr.Path)
	}
	r := &chat.REPL{Agent: a, In: in, Out: g.stdout, Interrupts: interrupts, Masker: m}
	return r.Run(ctx)
}

// forwardInterrupts turns SIGINTs into interrupts until ctx ends.
func forwardInterrupts(ctx context.Context, sigs <-chan os.Signal, out chan<- struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sigs:
			select {
			case out <- struct{}{}:
			default: // four presses queued already
			}
		}
	}
}

// terminalError is an error whose text is printed with its control
// characters written out (termsafe.Text).
type terminalError struct{ err error }

func (e terminalError) Error() string { return termsafe.Text(e.err.Error()) }
func (e terminalError) Unwrap() error { return e.err }
