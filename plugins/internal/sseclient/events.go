package sseclient

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEventName bounds an event's name ("endpoint", "message"): longer
// names are cut, and match neither.
const maxEventName = 64

// event is one server-sent event: its name ("message" when the stream
// named none) and its data lines joined by "\n".
type event struct {
	name string
	data []byte
}

// eventReader reads the events of a text/event-stream body (the HTML
// living standard's format, which the legacy MCP transport uses): lines
// end in "\n" or "\r\n"; a "data" line's value is appended to the event's
// data; an "event" line names the event; a blank line ends the event; "id",
// "retry", other fields and comments (":") are ignored. An event's data is
// bounded by max bytes: a longer one fails the stream with a
// *TooLargeError, so the reader never holds more than about max bytes.
// Data is appended straight from the buffered reader, never copied line by
// line first.
type eventReader struct {
	br  *bufio.Reader
	max int // 0: unbounded

	name    []byte
	data    []byte
	hasData bool
}

func newEventReader(r io.Reader, max int) *eventReader {
	return &eventReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// TooLargeError is the failure of a stream whose event's data passed the
// reader's bound.
type TooLargeError struct {
	// Limit is the bound, Seen how many bytes of data were read.
	Limit, Seen int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("an event of the SSE stream is larger than the %d-byte message limit (refused after %d bytes of data)", e.Limit, e.Seen)
}

// next returns the next event. At the end of the stream it returns the
// read error (io.EOF for a clean end); an event the stream did not finish
// with a blank line is dropped, as the standard says.
func (r *eventReader) next() (event, error) {
	r.name, r.data, r.hasData = r.name[:0], nil, false
	for {
		blank, err := r.line()
		if err != nil {
			return event{}, err
		}
		if !blank {
			continue
		}
		if !r.hasData { // an event without data is dropped, its name with it
			r.name = r.name[:0]
			continue
		}
		name := string(r.name)
		if name == "" {
			name = "message"
		}
		return event{name: name, data: r.data}, nil
	}
}

// line reads one line and applies its field. blank reports an empty line
// (the end of an event).
func (r *eventReader) line() (blank bool, err error) {
	chunk, err := r.br.ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		return false, err
	}
	if isBlank(chunk) {
		return true, nil
	}
	field, value, found := bytes.Cut(chunk, []byte(":"))
	if !found { // a line without a colon is a field name with an empty value
		field, value = trimEOL(chunk), chunk[len(chunk):]
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "data":
		return false, r.appendData(value, err)
	case "event":
		r.name = r.name[:0]
		return false, r.rest(value, err, func(b []byte) error {
			r.name = append(r.name, b[:min(len(b), maxEventName-len(r.name))]...)
			return nil
		})
	default: // id, retry, comments, unknown fields: skip the line
		return false, r.rest(value, err, func([]byte) error { return nil })
	}
}

// appendData adds a data line's value, which starts with first, to the
// event's data.
func (r *eventReader) appendData(first []byte, err error) error {
	if r.hasData {
		r.data = append(r.data, '\n')
	}
	r.hasData = true
	start := len(r.data)
	if err := r.rest(first, err, r.grow); err != nil {
		return err
	}
	if len(r.data) > start && r.data[len(r.data)-1] == '\r' { // "\r\n" split over two reads
		r.data = r.data[:len(r.data)-1]
	}
	return nil
}

// grow appends b to the data, within the bound.
func (r *eventReader) grow(b []byte) error {
	if r.max > 0 && len(r.data)+len(b) > r.max {
		return &TooLargeError{Limit: r.max, Seen: len(r.data) + len(b)}
	}
	r.data = append(r.data, b...)
	return nil
}

// rest hands the line's value to use, first the part already read, then
// the rest of a line longer than the buffer; the line end is left out.
func (r *eventReader) rest(part []byte, err error, use func([]byte) error) error {
	for {
		full := errors.Is(err, bufio.ErrBufferFull)
		if !full {
			part = trimEOL(part)
		}
		if err := use(part); err != nil {
			return err
		}
		if !full {
			return nil
		}
		part, err = r.br.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

func isBlank(line []byte) bool {
	return len(trimEOL(line)) == 0 && len(line) > 0 && line[len(line)-1] == '\n'
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
