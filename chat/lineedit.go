package chat

import (
	"errors"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/term"
)

// TermLines reads lines from a terminal with line editing (arrows,
// Home/End, Ctrl-A/E/K/U/W, word moves) and this chat's history (up and
// down), using golang.org/x/term's Terminal. The terminal is in raw mode
// only while a line is read, so while a message runs Ctrl-C is an
// ordinary SIGINT.
type TermLines struct {
	in     *os.File
	out    io.Writer
	prompt string
	keys   *keyWatch
	t      *term.Terminal
}

// NewTermLines reads from the terminal in and echoes to out.
func NewTermLines(in *os.File, out io.Writer, prompt string) *TermLines {
	l := &TermLines{in: in, out: out, prompt: prompt, keys: &keyWatch{r: in}}
	l.t = term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{l.keys, out}, prompt)
	return l
}

// ReadLine reads one line: ErrInterrupt for Ctrl-C, io.EOF for Ctrl-D on
// an empty line.
func (l *TermLines) ReadLine() (string, error) {
	fd := int(l.in.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	defer term.Restore(fd, state)
	if w, h, err := term.GetSize(fd); err == nil {
		_ = l.t.SetSize(w, h)
	}
	line, err := l.t.ReadLine()
	if errors.Is(err, io.EOF) && l.keys.ctrlC.Swap(false) {
		// x/term ends the read at Ctrl-C as at Ctrl-D, and keeps the
		// abandoned line: start a fresh terminal on the same history.
		io.WriteString(l.out, "^C\r\n")
		history := l.t.History
		l.t = term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{l.keys, l.out}, l.prompt)
		l.t.History = history
		return "", ErrInterrupt
	}
	return line, err
}

// keyWatch notes a Ctrl-C byte in what the terminal reads.
type keyWatch struct {
	r     io.Reader
	ctrlC atomic.Bool
}

func (k *keyWatch) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	for _, b := range p[:n] {
		if b == 3 {
			k.ctrlC.Store(true)
		}
	}
	return n, err
}
