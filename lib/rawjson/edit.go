package rawjson

import "encoding/json"

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

// Delete returns raw without the member at path (a chain of object keys;
// every occurrence of the last key in its object); ok is false, and raw
// returned unchanged, when the path is absent. The object that held the
// member is rewritten from its other members — values byte for byte, keys
// re-quoted, whitespace between members dropped; the rest of raw is kept.
func Delete(raw []byte, path ...string) ([]byte, bool) {
	if len(path) == 0 {
		return raw, false
	}
	parent := path[:len(path)-1]
	start, end := 0, len(raw)
	if len(parent) > 0 {
		var ok bool
		if start, end, ok = Member(raw, parent...); !ok {
			return raw, false
		}
	}
	obj := raw[start:end]
	last := path[len(path)-1]
	var b []byte
	found := false
	valid := ScanMembers(View(obj), func(key string, vs, ve int) bool {
		if key == last {
			found = true
			return true
		}
		if b == nil {
			b = append(make([]byte, 0, len(obj)), '{')
		} else {
			b = append(b, ',')
		}
		b = append(b, quoteKey(key)...)
		b = append(b, ':')
		b = append(b, obj[vs:ve]...)
		return true
	})
	if !valid || !found {
		return raw, false
	}
	if b == nil {
		b = append(b, '{')
	}
	b = append(b, '}')
	out := make([]byte, 0, len(raw)-len(obj)+len(b))
	out = append(out, raw[:start]...)
	out = append(out, b...)
	return append(out, raw[end:]...), true
}

func quoteKey(k string) []byte {
	b, _ := json.Marshal(k) // a string always encodes
	return b
}
