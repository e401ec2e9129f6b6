package pluginapi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxMessageBytes is the largest JSON-RPC message accepted from a
// server when the host sets no limit (OpenRequest.MaxMessageBytes 0).
const DefaultMaxMessageBytes = 64 << 20

// lineBufferSize is the read buffer of a LineReader: lines up to this size
// cost one copy; longer ones are gathered in spill chunks.
const lineBufferSize = 64 << 10

// spillChunkSize is the size of the chunks a long line is gathered in.
const spillChunkSize = 1 << 20

// LineReader reads newline-delimited JSON-RPC messages (the stdio framing)
// of at most a limit of bytes each. A line of any length is read without
// doubling-growth copies: it is gathered in 1 MiB chunks kept outside the Go
// heap where the platform allows (anonymous mmap), then copied once into a
// slice of exactly its length while each chunk is released as soon as it is
// copied, so the peak is the line plus one chunk and the Go heap grows by
// the line alone. A line over the limit is not buffered past the limit.
// A LineReader is not safe for concurrent use.
type LineReader struct {
	r     *bufio.Reader
	limit int
	spool *ResultSpool // nil: no spooling
}

// SetSpool makes the reader spool results over the limit to disk instead of
// refusing them (see ResultSpool); nil turns spooling off.
func (l *LineReader) SetSpool(s *ResultSpool) {
	if s != nil && s.MaxBytes <= l.limit {
		s = nil // nothing to spool: the limit refuses first
	}
	l.spool = s
}

// NewLineReader returns a LineReader over r accepting lines of at most limit
// bytes (without the newline); limit <= 0 means DefaultMaxMessageBytes.
func NewLineReader(r io.Reader, limit int) *LineReader {
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	return &LineReader{r: bufio.NewReaderSize(r, lineBufferSize), limit: limit}
}

// Limit returns the largest line ReadLine accepts, in bytes.
func (l *LineReader) Limit() int { return l.limit }

// ReadLine returns the next line without its newline, in a new slice that
// the caller owns. With a non-nil error the line may still hold a last,
// unterminated line. A line longer than the limit yields a
// *MessageTooLargeError (and KindMessageTooLarge from KindOf) once more
// than limit of its bytes were read — at most one read buffer (64 KiB) more;
// the reader is then in the middle of that line, and the caller should give
// up on the stream.
func (l *LineReader) ReadLine() ([]byte, error) {
	frag, err := l.r.ReadSlice('\n')
	if err == nil {
		if len(frag)-1 > l.limit {
			return nil, l.tooLarge(len(frag) - 1)
		}
		return append([]byte(nil), frag[:len(frag)-1]...), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(frag) > l.limit {
			return nil, l.tooLarge(len(frag))
		}
		return append([]byte(nil), frag...), err
	}
	return l.readLong(frag)
}

// readLong gathers a line longer than the read buffer, whose first fragment
// is frag, in spill chunks.
func (l *LineReader) readLong(frag []byte) ([]byte, error) {
	var s spill
	defer s.release()
	var err error = bufio.ErrBufferFull
	for {
		ended := err == nil
		if ended {
			frag = frag[:len(frag)-1] // the newline
		}
		if s.size+len(frag) > l.limit {
			if l.spool != nil {
				return l.spoolRest(&s, frag, err)
			}
			return nil, l.tooLarge(s.size + len(frag))
		}
		if werr := s.write(frag); werr != nil {
			return nil, werr
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return s.collect(), err
		}
		frag, err = l.r.ReadSlice('\n')
	}
}

// spoolRest carries on with a line over the limit as a spooled result:
// what was gathered so far and frag (the newline stripped already when
// err is nil) go through a SpoolWriter, then the rest of the line. It
// returns the message that stands in for the line, or the error that
// refuses it.
func (l *LineReader) spoolRest(s *spill, frag []byte, err error) ([]byte, error) {
	w, serr := l.spool.Begin(l.limit, "", s.size+len(frag))
	if serr != nil {
		return nil, serr
	}
	for _, c := range s.chunks {
		if _, werr := w.Write(c); werr != nil {
			return nil, werr
		}
	}
	s.release()
	for {
		if _, werr := w.Write(frag); werr != nil {
			return nil, werr
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		frag, err = l.r.ReadSlice('\n')
		if err == nil {
			frag = frag[:len(frag)-1]
		}
	}
	if err != nil { // the stream ended inside the line
		w.Abort()
		return nil, err
	}
	return w.Finish()
}

func (l *LineReader) tooLarge(seen int) error {
	return &Error{Op: "recv", Kind: KindMessageTooLarge, Err: &MessageTooLargeError{Limit: l.limit, Seen: seen}}
}

// MessageTooLargeError says a server sent a message longer than the limit.
type MessageTooLargeError struct {
	// Limit is the largest message accepted, in bytes.
	Limit int
	// Seen is how many bytes of the message had been read when it was
	// refused (a little more than Limit: reading stops there).
	Seen int
	// What names what was too large ("response body", "event", "result");
	// "" means "message".
	What string
	// Setting, when set, names the setting that raises Limit; the error
	// then says to raise it.
	Setting string
}

// Error implements error.
func (e *MessageTooLargeError) Error() string {
	what := e.What
	if what == "" {
		what = "message"
	}
	article := "a"
	if strings.ContainsRune("aeiou", rune(what[0])) {
		article = "an" // "an event"
	}
	msg := fmt.Sprintf("the server sent %s %s larger than the %s limit (refused after %d bytes)", article, what, FormatBytes(e.Limit), e.Seen)
	if e.Setting != "" {
		msg += fmt.Sprintf("; raise %s to accept larger %ss", e.Setting, what)
	}
	return msg
}

// FormatBytes writes n as MiB when it is a whole number of them, else as
// bytes: "64 MiB", "1500 bytes".
func FormatBytes(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// spill is a line gathered in chunks. Chunks come from allocChunk (outside
// the Go heap where possible) and go back through freeChunk.
type spill struct {
	chunks [][]byte
	size   int
}

// write appends b, starting new chunks as needed.
func (s *spill) write(b []byte) error {
	for len(b) > 0 {
		n := len(s.chunks)
		if n == 0 || len(s.chunks[n-1]) == cap(s.chunks[n-1]) {
			c, err := allocChunk(spillChunkSize)
			if err != nil {
				return &Error{Op: "recv", Kind: KindInternal, Err: fmt.Errorf("buffer a long message: %w", err)}
			}
			s.chunks = append(s.chunks, c[:0])
			n++
		}
		last := &s.chunks[n-1]
		k := min(len(b), cap(*last)-len(*last))
		*last = append(*last, b[:k]...)
		b = b[k:]
		s.size += k
	}
	return nil
}

// collect copies the line into one slice of its exact length, releasing
// each chunk as soon as it is copied; the slice is not cleared first
// (makeNoZero), so the peak is the line plus one chunk.
func (s *spill) collect() []byte {
	out := makeNoZero(s.size)
	for i, c := range s.chunks {
		out = append(out, c...)
		freeChunk(c)
		s.chunks[i] = nil
	}
	s.chunks = s.chunks[:0]
	return out
}

// release frees what collect did not.
func (s *spill) release() {
	for _, c := range s.chunks {
		if c != nil {
			freeChunk(c)
		}
	}
	s.chunks = nil
}
