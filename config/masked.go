package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/plughost/plughost/lib/secret"
)

// maskedValueMsg is the problem of a secret whose value is secret.Masked:
// what every front end shows in place of a secret is never a value anyone
// means to store (a masked export pasted back, a form's "****" for a key
// with nothing stored). manage.KeepMasked has already put the stored value
// back wherever there was one.
const maskedValueMsg = `is "****", the mask plughost shows in place of a secret, not a value; ` +
	`type the real value (a "****" sent back through the API keeps a stored value only where one is stored under the same key)`

// maskedURL lists what of a URL's credentials is secret.Masked: the
// password (or the user info as a whole) and query parameter values, as
// messages.
func maskedURL(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	const tail = `, the mask plughost shows in place of a secret, not a value; type the real one`
	var out []string
	if pw, ok := u.User.Password(); ok && pw == secret.Masked {
		out = append(out, `its password is "****"`+tail)
	} else if u.User != nil && !ok && u.User.Username() == secret.Masked {
		out = append(out, `its user info is "****"`+tail)
	}
	q := u.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if slices.Contains(q[k], secret.Masked) {
			out = append(out, fmt.Sprintf(`its query parameter %q is "****"`+tail, trunc(k)))
		}
	}
	return out
}

// checkMasked reports every secret of the server whose value is the mask.
func (v serverValidator) checkMasked() {
	s := v.s
	for _, f := range []struct {
		key    string
		values map[string]secret.String
	}{{"env", s.Env}, {"headers", s.Headers}} {
		for _, k := range slices.Sorted(maps.Keys(f.values)) {
			if f.values[k].Reveal() == secret.Masked {
				v.p.server(v.name, serverPath(v.name, f.key, k), maskedValueMsg)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Extra)) {
		if s.Extra[k].Reveal() == `"`+secret.Masked+`"` {
			v.p.server(v.name, serverPath(v.name, k), maskedValueMsg)
		}
	}
	if s.OAuth != nil && s.OAuth.ClientSecret.Reveal() == secret.Masked {
		v.fail("oauth.client_secret", maskedValueMsg)
	}
	for _, msg := range maskedURL(s.URL.Reveal()) {
		v.fail("url", msg)
	}
}
