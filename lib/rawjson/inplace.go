package rawjson

import (
	"bytes"
	"unicode/utf8"
	"unsafe"
)

// View returns a string that shares b's bytes, so a message of megabytes can
// be scanned with the string functions of this package without a copy. b
// must not change while the view (or any substring of it) is in use.
func View(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// DecodeInPlace decodes the JSON string literal lit (quotes included, valid
// JSON as StringEnd checks it) into lit's own bytes and returns the text as a
// string sharing them: no copy of a text of megabytes is made. It matches
// json.Unmarshal into a string byte for byte. Every escape is longer than the
// character it stands for, so the text always fits; only bytes that are not
// UTF-8 would grow (each becomes U+FFFD), and then the text is decoded into a
// new string instead, leaving lit as it was. After a decode in place lit's
// bytes belong to the returned string: the caller must not change them, and
// must no longer use other views of them.
func DecodeInPlace(lit []byte) string {
	body := lit[1 : len(lit)-1]
	if !utf8.Valid(body) {
		return DecodeString(View(lit))
	}
	w := 0 // body[:w] is decoded
	for r := 0; r < len(body); {
		i := bytes.IndexByte(body[r:], '\\')
		if i < 0 {
			w += copy(body[w:], body[r:])
			break
		}
		w += copy(body[w:], body[r:r+i])
		r += i
		ch, size := decodeEscape(View(body[r:min(r+12, len(body))]))
		w += utf8.EncodeRune(body[w:], ch)
		r += size
	}
	return View(body[:w])
}
