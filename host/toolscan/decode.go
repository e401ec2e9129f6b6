package toolscan

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// decodeBase64 decodes a run of base64 (standard or URL alphabet, padded
// or not); nil when it is not base64.
func decodeBase64(s string) []byte {
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		if strings.ContainsAny(s, "+/") {
			return nil
		}
		enc = base64.RawURLEncoding
	}
	s = s[:len(s)/4*4+tail(len(s)%4)]
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// tail is how many of the last len%4 characters can be decoded: a single
// left-over character cannot.
func tail(rem int) int {
	if rem == 1 {
		return 0
	}
	return rem
}

func decodeHex(s string) []byte {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s)%2 == 1 {
		s = s[:len(s)-1]
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// decodesToText reports whether b reads as text: at least 16 bytes, of
// which nine in ten are printable ASCII or line breaks, with some letters
// and spaces. Random bytes (a hash, a key) are printable about one time in
// three, so a long run of them never passes.
func decodesToText(b []byte) bool {
	if len(b) < 16 {
		return false
	}
	printable, letters, spaces := 0, 0, 0
	for _, c := range b {
		switch {
		case c == ' ':
			spaces++
			printable++
		case c == '\n' || c == '\t' || c == '\r':
			printable++
		case c > 0x20 && c < 0x7f:
			printable++
			if (c|0x20) >= 'a' && (c|0x20) <= 'z' {
				letters++
			}
		}
	}
	return printable*10 >= len(b)*9 && letters*2 >= len(b) && spaces > 0
}
