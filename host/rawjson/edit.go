package rawjson

// Member returns the bounds in raw of the value at path, a chain of object
// keys (the last one when a key repeats, as encoding/json reads it); ok is
// false when raw is not a valid JSON object or the path is absent.
func Member(raw []byte, path ...string) (start, end int, ok bool) {
	s := View(raw)
	start, end = 0, len(s)
	for _, key := range path {
		found := false
		base := start
		valid := ScanMembers(s[base:end], func(k string, vs, ve int) bool {
			if k == key {
				start, end, found = base+vs, base+ve, true
			}
			return true
		})
		if !valid || !found {
			return 0, 0, false
		}
	}
	return start, end, len(path) > 0
}

// Replace returns a copy of raw with the value at path replaced by value
// (valid JSON), every other byte as it was; ok is false, and raw returned
// unchanged, when the path is absent.
func Replace(raw, value []byte, path ...string) ([]byte, bool) {
	start, end, ok := Member(raw, path...)
	if !ok {
		return raw, false
	}
	out := make([]byte, 0, len(raw)-(end-start)+len(value))
	out = append(out, raw[:start]...)
	out = append(out, value...)
	return append(out, raw[end:]...), true
}

// String returns the string value at path, decoded; ok is false when it is
// absent or not a string.
func String(raw []byte, path ...string) (string, bool) {
	start, end, ok := Member(raw, path...)
	if !ok || raw[start] != '"' {
		return "", false
	}
	return DecodeString(string(raw[start:end])), true
}
