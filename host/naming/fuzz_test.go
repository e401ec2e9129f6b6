package naming

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var validComponent = regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "github", "my.server", "a__b", "__a__", "café", "日本", "a\xffb", "_", "-", "unnamed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		clean, changed := Sanitize(s)
		if !validComponent.MatchString(clean) {
			t.Errorf("Sanitize(%q) = %q: invalid component", s, clean)
		}
		if changed != (clean != s) {
			t.Errorf("Sanitize(%q) = %q, changed=%v", s, clean, changed)
		}
		if again, changed := Sanitize(clean); again != clean || changed {
			t.Errorf("Sanitize not idempotent: %q -> %q -> %q", s, clean, again)
		}
	})
}

func FuzzAssign(f *testing.F) {
	long := strings.Repeat("s", 60)
	f.Add("github", "create_issue", "a_b", "c", "a", "b_c")
	f.Add("a.b", "c", "a_b", "c_"+h("a.b", "c"), "", "")
	f.Add(long, "t7173", long, "t58953", long, "x")
	f.Add("a\x00b", "c", "a", "b\x00c", "unnamed", "unnamed")
	f.Add("café", "über", "caf", "ber", strings.Repeat("x", 100), "y")
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2, s3, t3 string) {
		pairs := []Pair{{s1, t1}, {s2, t2}, {s3, t3}}
		got := Assign(pairs)
		checkNames(t, got)
		for _, p := range pairs {
			if _, ok := got[p]; !ok {
				t.Fatalf("no name for %q", p)
			}
		}
		reordered := []Pair{pairs[2], pairs[0], pairs[1], pairs[0]}
		if diff := cmp.Diff(got, Assign(reordered)); diff != "" {
			t.Errorf("order changed names (-first +reordered):\n%s", diff)
		}
	})
}
