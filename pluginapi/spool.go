package pluginapi

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// ResultSpool lets whoever reads a server's messages take a tools/call
// result larger than the message limit without holding it in memory: the
// message is scanned as it is read (SpoolWriter), the text of its content
// items is decoded straight into a file in Dir that only its owner may read
// (mode 0600; on Windows an owner-only ACL), and the message handed on in
// its place is a small result of the same request holding the beginning of
// that text and the file's path. A message over MaxBytes, or one over the
// limit that is not a result, is still refused with KindMessageTooLarge.
//
// The host's direct-pipes reader uses it itself (LineReader.SetSpool); it
// also crosses the plugin boundary in the Open frame, so a transport that
// reads the server itself (the stdio relay, the sse and http plugins)
// spools the same way.
type ResultSpool struct {
	// Dir is where spooled results are written (the artifact store's
	// directory of MCP results, so the model can page them); it is created
	// 0700 if missing.
	Dir string
	// MaxBytes is the largest result message spooled (max_result_mb).
	MaxBytes int
	// NamePrefix starts the file name of a finished result, which is
	// StampedName(NamePrefix, now); "" means "result".
	NamePrefix string
	// MaxSetting and MessageSetting name the settings that raise MaxBytes
	// and the message limit, for the note in the result.
	MaxSetting, MessageSetting string
}

// spoolHeadBytes is how much of a spooled result's text the result handed
// on keeps.
const spoolHeadBytes = 8 << 10

// spooler scans one over-limit line as it is read: a small JSON tokenizer
// that tracks where it is, keeps the top-level id, notes result / error /
// result.isError, and decodes every result.content[*].text string into the
// file (items separated by a newline), keeping the first spoolHeadBytes.
type spooler struct {
	cfg  *ResultSpool
	f    *os.File
	out  *bufio.Writer
	size int // bytes of the line scanned

	stack  []jsonFrame
	inStr  bool
	isKey  bool
	esc    int    // 0: none; 1: after '\'; 2..5: reading \u hex digits
	hex    rune   // the \u value being read
	hi     rune   // a pending high surrogate
	key    []byte // the key being read (bounded)
	onText bool   // the string being read is a content item's text
	onID   bool   // the value being read is the top-level id
	onErr  bool   // the value being read is result.isError

	id        []byte
	isError   []byte
	hasResult bool
	notResult bool // the line cannot be a result: not an object, or a member other than jsonrpc, id, result
	root      bool // the root object was opened
	items     int
	textBytes int64
	head      []byte
	werr      error
}

// jsonFrame is one open object or array.
type jsonFrame struct {
	obj      bool
	key      string // the member being read (objects)
	valueDue bool   // after the ':' of that member
}

// newSpooler creates the spool file.
func newSpooler(cfg *ResultSpool) (*spooler, error) {
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(cfg.Dir, ".tmp-spool-*")
	if err != nil {
		return nil, err
	}
	if err := restrictToOwner(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &spooler{cfg: cfg, f: f, out: bufio.NewWriterSize(f, 256<<10)}, nil
}

// at reports whether the scanner is inside exactly the members keys name
// ("[]" for an array element), from the root down.
func (s *spooler) at(keys ...string) bool {
	if len(s.stack) != len(keys) {
		return false
	}
	for i, k := range keys {
		if k == "[]" {
			if s.stack[i].obj {
				return false
			}
			continue
		}
		if !s.stack[i].obj || s.stack[i].key != k {
			return false
		}
	}
	return true
}

// write scans b, the next bytes of the line.
func (s *spooler) write(b []byte) {
	s.size += len(b)
	for _, c := range b {
		if s.inStr {
			s.strByte(c)
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			s.endPrimitive()
		case '{', '[':
			s.endPrimitive()
			if len(s.stack) == 0 {
				s.notResult = s.notResult || c != '{' || s.root
				s.root = true
			}
			s.stack = append(s.stack, jsonFrame{obj: c == '{'})
		case '}', ']':
			s.endPrimitive()
			if len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
		case ':':
			if n := len(s.stack); n > 0 {
				s.stack[n-1].valueDue = true
				if n == 1 {
					switch s.stack[0].key {
					case "result":
						s.hasResult = true
					case "jsonrpc", "id":
					default:
						s.notResult = true
					}
				}
				s.onID = n == 1 && s.stack[0].key == "id"
				s.onErr = s.at("result", "isError")
			}
		case ',':
			s.endPrimitive()
			if n := len(s.stack); n > 0 && s.stack[n-1].obj {
				s.stack[n-1].key, s.stack[n-1].valueDue = "", false
			}
		case '"':
			n := len(s.stack)
			s.inStr = true
			s.isKey = n > 0 && s.stack[n-1].obj && !s.stack[n-1].valueDue
			s.key = s.key[:0]
			s.onText = !s.isKey && s.at("result", "content", "[]", "text")
			if s.onText && s.items > 0 {
				s.emit([]byte{'\n'})
			}
			if s.onID {
				s.id = append(s.id, c)
			}
		default:
			if len(s.stack) == 0 {
				s.notResult = true
			}
			if s.onID && len(s.id) < 256 {
				s.id = append(s.id, c)
			}
			if s.onErr && len(s.isError) < 8 {
				s.isError = append(s.isError, c)
			}
		}
	}
}

// endPrimitive stops capturing a number or literal.
func (s *spooler) endPrimitive() {
	if len(s.id) > 0 {
		s.onID = false
	}
	if len(s.isError) > 0 {
		s.onErr = false
	}
}

// strByte handles one byte inside a string.
func (s *spooler) strByte(c byte) {
	if s.onID && len(s.id) < 256 {
		s.id = append(s.id, c)
	}
	switch {
	case s.esc == 1:
		s.esc = 0
		switch c {
		case 'u':
			s.esc, s.hex = 2, 0
		case 'n':
			s.text('\n')
		case 't':
			s.text('\t')
		case 'r':
			s.text('\r')
		case 'b':
			s.text('\b')
		case 'f':
			s.text('\f')
		default: // '"', '\\', '/'
			s.text(rune(c))
		}
		return
	case s.esc >= 2:
		s.hex = s.hex<<4 | rune(hexVal(c))
		if s.esc++; s.esc == 6 {
			s.esc = 0
			s.text(s.hex)
		}
		return
	case c == '\\':
		s.esc = 1
		return
	case c == '"':
		s.inStr = false
		if s.isKey {
			if n := len(s.stack); n > 0 {
				s.stack[n-1].key = string(s.key)
			}
		} else if s.onText {
			s.items++
			s.onText = false
			s.flushSurrogate()
		}
		if !s.isKey {
			s.onID = false
		}
		return
	}
	if s.isKey {
		if len(s.key) < 64 {
			s.key = append(s.key, c)
		}
		return
	}
	if s.onText {
		s.flushSurrogate()
		s.emit([]byte{c})
	}
}

// text writes one decoded escape of a text string.
func (s *spooler) text(r rune) {
	if s.isKey {
		if len(s.key) < 64 {
			s.key = utf8.AppendRune(s.key, r)
		}
		return
	}
	if !s.onText {
		return
	}
	switch {
	case utf16.IsSurrogate(r) && r < 0xdc00:
		s.flushSurrogate()
		s.hi = r
		return
	case utf16.IsSurrogate(r) && s.hi != 0:
		r, s.hi = utf16.DecodeRune(s.hi, r), 0
	default:
		s.flushSurrogate()
	}
	s.emit(utf8.AppendRune(nil, r))
}

// flushSurrogate writes a high surrogate that no low one followed.
func (s *spooler) flushSurrogate() {
	if s.hi != 0 {
		s.hi = 0
		s.emit([]byte(string(utf8.RuneError)))
	}
}

// emit writes decoded text to the file and the head.
func (s *spooler) emit(b []byte) {
	if s.werr == nil {
		_, s.werr = s.out.Write(b)
	}
	s.textBytes += int64(len(b))
	if len(s.head) < spoolHeadBytes {
		s.head = append(s.head, b[:min(len(b), spoolHeadBytes-len(s.head))]...)
	}
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// hopeless reports whether the line, as far as it was read, cannot be a
// result: the caller refuses it at once instead of spooling the rest.
// A result names its "result" member before the bulk of it, so a line that
// has not by the time the message limit is passed is not spooled either.
func (s *spooler) hopeless() bool { return s.notResult || !s.hasResult }

// abort removes the file.
func (s *spooler) abort() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// finish closes the file under its final name and returns the message that
// stands in for the line, or ok false when the line was not a result with
// an id (the file is then removed).
func (s *spooler) finish(limit int) (json.RawMessage, bool, error) {
	if !s.hasResult || len(s.id) == 0 || !json.Valid(s.id) {
		s.abort()
		return nil, false, nil
	}
	err := s.werr
	if err == nil {
		err = s.out.Flush()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	prefix := s.cfg.NamePrefix
	if prefix == "" {
		prefix = "result"
	}
	final := filepath.Join(s.cfg.Dir, StampedName(prefix, time.Now()))
	if err == nil {
		err = os.Rename(s.f.Name(), final)
	}
	if err != nil {
		os.Remove(s.f.Name())
		return nil, false, fmt.Errorf("spool a large result to %s: %w", s.cfg.Dir, err)
	}
	head := s.head
	for len(head) > 0 && !utf8.Valid(head) { // the cut may split a character
		head = head[:len(head)-1]
	}
	note := fmt.Sprintf("[plughost: this result is %s, over the %s a message may take in memory (%s), so its text (%d item(s), %d bytes) was written while it was read to %s — page it with read_file or search_files. Its first %d bytes follow.]\n",
		FormatBytes(s.size), FormatBytes(limit), s.cfg.MessageSetting, s.items, s.textBytes, final, len(head))
	res := map[string]any{
		"content": []map[string]any{{"type": "text", "text": note + string(head)}},
		"_meta":   map[string]any{"plughost/spooled": map[string]any{"path": final, "bytes": s.size, "textBytes": s.textBytes}},
	}
	if string(s.isError) == "true" {
		res["isError"] = true
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(s.id), "result": res})
	if err != nil {
		return nil, false, err
	}
	return msg, true, nil
}

// StampedName returns a new file name prefix + "-<UTC time to the
// millisecond>-<8 random hex digits>.txt": the naming of artifact files,
// shared by the host's artifact store and spooled results, so both sort by
// time and never collide.
func StampedName(prefix string, now time.Time) string {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails on supported platforms
	return fmt.Sprintf("%s-%s-%s.txt", prefix, now.UTC().Format("20060102T150405.000Z"), hex.EncodeToString(rnd[:]))
}
