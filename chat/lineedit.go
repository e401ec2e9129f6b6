package chat

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"

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

var _ LineReader = (*TermLines)(nil)

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
	if errors.Is(err, io.EOF) && l.keys.interrupted() {
		// x/term ends the read at Ctrl-C as at Ctrl-D, keeps the
		// abandoned line and drops what was typed after the Ctrl-C: start
		// a fresh terminal on the same history, fed those keys again.
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

// keyWatch notes a Ctrl-C byte in what the terminal reads, and keeps the
// keys read after it for a fresh terminal.
type keyWatch struct {
	r       io.Reader
	mu      sync.Mutex
	ctrlC   bool
	after   []byte // read after the last chunk's first Ctrl-C
	pending []byte // to be read again (by the fresh terminal)
}

func (k *keyWatch) Read(p []byte) (int, error) {
	k.mu.Lock()
	var n int
	var err error
	if len(k.pending) > 0 {
		n = copy(p, k.pending)
		k.pending = k.pending[n:]
		k.mu.Unlock()
	} else {
		k.mu.Unlock()
		n, err = k.r.Read(p)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	// A new read means the terminal used up the last one: what followed
	// a Ctrl-C there was handled or is no longer wanted.
	k.after = nil
	if i := bytes.IndexByte(p[:n], 3); i >= 0 {
		k.ctrlC = true
		k.after = append([]byte(nil), p[i+1:n]...)
	}
	return n, err
}

// interrupted reports (once) whether the read ended at a Ctrl-C; if so,
// the keys typed after it are read again.
func (k *keyWatch) interrupted() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.ctrlC {
		return false
	}
	k.ctrlC = false
	k.pending = append(k.after, k.pending...)
	k.after = nil
	return true
}
