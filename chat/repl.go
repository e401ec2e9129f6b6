package chat

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/lib/termsafe"
)

// ErrInterrupt is what a LineReader returns for Ctrl-C at the prompt.
var ErrInterrupt = errors.New("interrupted")

// LineReader reads the user's lines: ErrInterrupt for Ctrl-C, io.EOF when
// the input ends (Ctrl-D).
type LineReader interface {
	ReadLine() (string, error)
}

// REPL is the interactive mode: a prompt, slash commands, and each line
// sent to the agent. Ctrl-C while a message runs cancels it (the model
// request, or the tool calls: their servers get notifications/cancelled);
// a second Ctrl-C — at once, or at the next prompt — exits.
type REPL struct {
	Agent *Agent
	In    LineReader
	// Out is where command output and hints go (the terminal the
	// Terminal observer writes to).
	Out io.Writer
	// Interrupts delivers a value for each Ctrl-C while a message runs
	// (SIGINT: the terminal is not in raw mode then).
	Interrupts <-chan struct{}
	Masker     *secret.Masker
}

// Help lists the commands.
const Help = `/tools          the tools the model sees now
/servers        the configured servers and their state
/clear          forget the conversation (and what was unlocked)
/save FILE      write the conversation to FILE (Markdown)
/help           this list
/exit           leave (or Ctrl-D, or Ctrl-C twice)`

// Run reads lines until the input ends, /exit, or a second Ctrl-C.
func (r *REPL) Run(ctx context.Context) error {
	lines := make(chan lineRead, 1)
	pending := false // a ReadLine is under way
	armed := false   // the last thing was a Ctrl-C: another one exits
	for {
		if !pending {
			go func() {
				line, err := r.In.ReadLine()
				lines <- lineRead{line, err}
			}()
			pending = true
		}
		var in lineRead
		select {
		case in = <-lines:
			pending = false
		case <-r.Interrupts: // SIGINT while reading (input that is not a raw terminal)
			in.err = ErrInterrupt
		case <-ctx.Done():
			return nil
		}
		switch {
		case errors.Is(in.err, ErrInterrupt):
			if armed {
				return nil
			}
			armed = true
			r.say("(Ctrl-C again to exit)")
			continue
		case errors.Is(in.err, io.EOF):
			return nil
		case in.err != nil:
			return fmt.Errorf("read the input: %w", in.err)
		}
		armed = false
		exit := false
		if armed, exit = r.handle(ctx, strings.TrimSpace(in.line)); exit {
			return nil
		}
	}
}

// lineRead is one ReadLine's result.
type lineRead struct {
	line string
	err  error
}

// handle runs one line: a command or a message. It reports whether a
// message was cancelled (the next Ctrl-C exits) and whether to exit.
func (r *REPL) handle(ctx context.Context, line string) (cancelled, exit bool) {
	switch {
	case line == "":
		return false, false
	case strings.HasPrefix(line, "/"):
		return false, r.command(ctx, line)
	}
	return r.ask(ctx, line)
}

// ask runs one message, cancelled by the first Ctrl-C; a second one
// exits at once. It reports whether the message was cancelled and
// whether to exit.
func (r *REPL) ask(ctx context.Context, line string) (cancelled, exit bool) {
	r.drain()
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.Agent.Ask(actx, line)
		done <- err
	}()
	presses := 0
	for {
		select {
		case <-done:
			if presses > 0 {
				r.say("(Ctrl-C again to exit)")
			}
			return presses > 0, false
		case <-r.Interrupts:
			presses++
			if presses > 1 {
				return true, true
			}
			r.say("") // past the terminal's ^C
			cancel()
		case <-ctx.Done():
			cancel()
			<-done
			return true, true
		}
	}
}

// drain forgets interrupts that arrived while no message ran.
func (r *REPL) drain() {
	for {
		select {
		case <-r.Interrupts:
		default:
			return
		}
	}
}

// command runs a slash command; it reports whether to exit.
func (r *REPL) command(ctx context.Context, line string) bool {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/exit", "/quit":
		return true
	case "/help":
		r.say(Help)
	case "/tools":
		r.tools(ctx)
	case "/servers":
		r.servers()
	case "/clear":
		if err := r.Agent.Clear(ctx); err != nil {
			r.say("error: " + err.Error())
			return false
		}
		r.say("The conversation was cleared; nothing is unlocked.")
	case "/save":
		if arg == "" {
			r.say("usage: /save FILE")
			return false
		}
		if err := r.save(arg); err != nil {
			r.say("error: " + err.Error())
			return false
		}
		r.say("Saved the conversation to " + arg + ".")
	default:
		r.say(fmt.Sprintf("unknown command %s; /help lists the commands", termsafe.Text(name)))
	}
	return false
}

func (r *REPL) tools(ctx context.Context) {
	tools, err := r.Agent.Tools(ctx)
	if err != nil {
		r.say("error: " + err.Error())
		return
	}
	if len(tools) == 0 {
		r.say("The model sees no tools: no server is connected (/servers).")
		return
	}
	tw := tabwriter.NewWriter(r.Out, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		fmt.Fprintf(tw, "%s\t%s\n", r.clean(t.Name), r.clean(shorten(firstLine(t.Description), 100)))
	}
	tw.Flush()
}

func (r *REPL) servers() {
	views := r.Agent.Servers()
	if len(views) == 0 {
		r.say("No servers are configured (plughost mcp add).")
		return
	}
	tw := tabwriter.NewWriter(r.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATUS")
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\n", r.clean(v.Name), r.clean(v.Description))
	}
	tw.Flush()
}

// save writes the conversation as Markdown, 0600 (it may quote what
// tools returned).
func (r *REPL) save(path string) error {
	var b strings.Builder
	for _, m := range r.Agent.Messages() {
		writeMarkdown(&b, m)
	}
	text := r.Masker.Mask(b.String())
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	return nil
}

func writeMarkdown(b *strings.Builder, m Message) {
	switch m.Role {
	case "system":
		fmt.Fprintf(b, "## system\n\n%s\n\n", m.Content)
	case "user":
		fmt.Fprintf(b, "## user\n\n%s\n\n", m.Content)
	case "assistant":
		fmt.Fprintf(b, "## assistant\n\n")
		if m.Content != "" {
			fmt.Fprintf(b, "%s\n\n", m.Content)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(b, "- calls `%s` (%s) with `%s`\n", c.Function.Name, c.ID, c.Function.Arguments)
		}
		if len(m.ToolCalls) > 0 {
			b.WriteString("\n")
		}
	case "tool":
		fmt.Fprintf(b, "## tool result (%s, %s)\n\n```\n%s\n```\n\n", m.Name, m.ToolCallID, m.Content)
	}
}

func (r *REPL) say(s string) { fmt.Fprintln(r.Out, s) }

func (r *REPL) clean(s string) string { return termsafe.Text(r.Masker.Mask(s)) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// ScanLines reads lines from a reader that is not a terminal (a pipe, a
// file): no editing; Ctrl-C arrives as SIGINT, never as a line.
type ScanLines struct{ sc *bufio.Scanner }

var _ LineReader = (*ScanLines)(nil)

// NewScanLines reads lines from r.
func NewScanLines(r io.Reader) *ScanLines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &ScanLines{sc: sc}
}

// ReadLine returns the next line, or io.EOF.
func (s *ScanLines) ReadLine() (string, error) {
	if s.sc.Scan() {
		return s.sc.Text(), nil
	}
	if err := s.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}
