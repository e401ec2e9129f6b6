package stdiotransport

import (
	"bufio"
	"errors"
	"strings"
)

// maxMessageSize bounds one line of server stdout; longer lines are dropped.
const maxMessageSize = 64 << 20

// errLineTooLong reports a line longer than the limit; it has been skipped.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line of r without its newline, as a fresh copy.
// With a non-nil error the line may still hold a last, unterminated line.
// errLineTooLong means the line was skipped and reading may go on.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	frag, err := r.ReadSlice('\n')
	if err == nil {
		return append([]byte(nil), frag[:len(frag)-1]...), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return append([]byte(nil), frag...), err
	}
	line := append([]byte(nil), frag...)
	for errors.Is(err, bufio.ErrBufferFull) {
		frag, err = r.ReadSlice('\n')
		if len(line)+len(frag) > limit+1 {
			return nil, skipLine(r, err)
		}
		line = append(line, frag...)
	}
	if err == nil {
		line = line[:len(line)-1]
	}
	return line, err
}

// skipLine discards the rest of the current line. It returns errLineTooLong,
// or the read error that ended the line.
func skipLine(r *bufio.Reader, err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = r.ReadSlice('\n')
	}
	if err != nil {
		return err
	}
	return errLineTooLong
}

// trimSpace trims JSON whitespace (and so a CR before the newline).
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// truncate returns at most n bytes of b as valid UTF-8, for logs.
func truncate(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
