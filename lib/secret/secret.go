package secret

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
)

// Masked is what every non-empty secret shows instead of its value. Its length
// is fixed so that it does not reveal the length of the value either.
const Masked = "****"

// String is a secret string value. Its String, GoString, Format, MarshalJSON
// and LogValue methods all mask the value; Reveal returns it. The zero value
// is the empty secret, which shows as the empty string.
type String string

// Mask returns Masked for a non-empty s and "" for an empty one, so that an
// unset secret stays visibly unset.
func Mask(s string) string {
	if s == "" {
		return ""
	}
	return Masked
}

// Reveal returns the real value. Call it only where the value is used, never
// to display it.
func (s String) Reveal() string { return string(s) }

// String returns the masked value.
func (s String) String() string { return Mask(string(s)) }

// GoString returns a Go-syntax representation with the value masked, for %#v.
func (s String) GoString() string {
	return "secret.String(" + strconv.Quote(Mask(string(s))) + ")"
}

// Format implements fmt.Formatter so that every verb and flag prints the
// masked value: %#v prints GoString, any other verb formats the masked text
// as a plain string would be (so %q quotes it and %x hex-encodes the mask).
func (s String) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), Mask(string(s)))
}

// MarshalJSON encodes the masked value as a JSON string.
func (s String) MarshalJSON() ([]byte, error) {
	return json.Marshal(Mask(string(s)))
}

// UnmarshalJSON accepts a plain JSON string (the real value, as written in a
// config file). JSON null leaves the value unchanged.
func (s *String) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New("secret: expected a JSON string")
	}
	*s = String(v)
	return nil
}

// LogValue implements slog.LogValuer so structured logs show the mask.
func (s String) LogValue() slog.Value { return slog.StringValue(Mask(string(s))) }
