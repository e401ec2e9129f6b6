package remote

import (
	"bytes"
	"encoding/json"

	"github.com/plughost/plughost/pluginapi"
)

// Bounds on the parts of a spooled event kept besides its data.
const (
	maxFieldName = 16
	maxEventID   = 256
)

// eventFields scans the lines of one event that is being spooled: the
// values of its data lines (the JSON-RPC message, lines joined by a newline
// as a reader of the stream would join them) go to w, its id is kept, the
// other fields and comments are skipped. It ends at the event's blank line.
// With w nil (the spool refused the result) the data is skipped too.
type eventFields struct {
	w *pluginapi.SpoolWriter

	name      []byte // the field name of the line being read (bounded)
	inValue   bool   // past the line's ':'
	skipSpace bool   // the value's optional leading space is due
	nonBlank  bool   // the line has something other than '\r'
	value     []byte // the id being read (bounded)

	id    []byte
	hasID bool

	refused   error           // why the spool refused the result (w is then nil)
	requestID json.RawMessage // the refused result's JSON-RPC id
}

// abort drops the spool file, if any.
func (f *eventFields) abort() {
	if f.w != nil {
		f.w.Abort()
	}
}

// feed scans b and returns how many of its bytes belong to the event and
// whether the event ended there.
func (f *eventFields) feed(b []byte) (int, bool, error) {
	for i := 0; i < len(b); {
		if f.inValue && string(f.name) == "data" {
			n, err := f.data(b[i:])
			if err != nil {
				return i, false, err
			}
			i += n
			continue
		}
		c := b[i]
		i++
		switch {
		case c == '\n':
			if !f.nonBlank {
				return i, true, nil
			}
			f.endLine()
		case !f.inValue && c == ':':
			f.inValue, f.skipSpace, f.nonBlank = true, true, true
		case !f.inValue:
			if c != '\r' {
				f.nonBlank = true
				if len(f.name) < maxFieldName {
					f.name = append(f.name, c)
				}
			}
		default:
			if f.skipSpace && c == ' ' {
				f.skipSpace = false
				continue
			}
			f.skipSpace = false
			if string(f.name) == "id" && c != '\r' && len(f.value) < maxEventID {
				f.value = append(f.value, c)
			}
		}
	}
	return len(b), false, nil
}

// data writes the value of a data line up to its newline (included, as the
// separator of data lines; JSON takes it as white space) and returns how
// many bytes of b it took.
func (f *eventFields) data(b []byte) (int, error) {
	skip := 0
	if f.skipSpace && len(b) > 0 {
		f.skipSpace = false
		if b[0] == ' ' {
			skip = 1
		}
	}
	end := indexNL(b)
	n := len(b)
	if end >= 0 {
		n = end + 1
	}
	if f.w != nil {
		if _, err := f.w.Write(b[skip:n]); err != nil {
			return 0, err
		}
	}
	if end >= 0 {
		f.endLine()
	}
	return n, nil
}

// endLine finishes a line that is not blank.
func (f *eventFields) endLine() {
	if f.inValue && string(f.name) == "id" {
		f.id, f.hasID = append(f.id[:0], f.value...), true
	}
	f.name, f.value = f.name[:0], f.value[:0]
	f.inValue, f.skipSpace, f.nonBlank = false, false, false
}

func indexNL(b []byte) int { return bytes.IndexByte(b, '\n') }
