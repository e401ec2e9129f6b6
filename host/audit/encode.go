package audit

import (
	"strconv"
	"unicode/utf8"
)

// appendJSON appends r as one JSON object, byte for byte what
// encoding/json writes with HTML escaping off, without reflection: the
// writer encodes every record, and this is several times cheaper.
func (r Record) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = r.Time.UTC().AppendFormat(b, TimeFormat)
	b = append(b, `","client":`...)
	b = appendString(b, r.Client)
	if r.Session != "" {
		b = appendString(append(b, `,"session":`...), r.Session)
	}
	b = appendString(append(b, `,"server":`...), r.Server)
	b = appendString(append(b, `,"method":`...), r.Method)
	if r.Name != "" {
		b = appendString(append(b, `,"name":`...), r.Name)
	}
	b = strconv.AppendFloat(append(b, `,"duration_ms":`...), r.DurationMS, 'f', -1, 64)
	b = appendString(append(b, `,"outcome":`...), string(r.Outcome))
	if r.Code != 0 {
		b = strconv.AppendInt(append(b, `,"code":`...), int64(r.Code), 10)
	}
	b = strconv.AppendInt(append(b, `,"bytes_in":`...), int64(r.BytesIn), 10)
	b = strconv.AppendInt(append(b, `,"bytes_out":`...), int64(r.BytesOut), 10)
	if r.ArgsSHA256 != "" {
		b = appendString(append(b, `,"args_sha256":`...), r.ArgsSHA256)
	}
	if r.Dropped != 0 {
		b = strconv.AppendInt(append(b, `,"dropped":`...), r.Dropped, 10)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, and U+2028/U+2029
// escaped (as encoding/json does, so a line is safe in JavaScript too).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
