package naming

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// h computes the expected suffix independently of the package's code.
func h(server, tool string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(server+"\x00"+tool)))[:8]
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"plain", "github", "github", false},
		{"hyphen and digits kept", "my-server2", "my-server2", false},
		{"case kept", "GitHub_CreateIssue", "GitHub_CreateIssue", false},
		{"dots", "my.server", "my_server", true},
		{"spaces", "read file", "read_file", true},
		{"unicode", "café über", "caf_ber", true},
		{"only unicode", "日本", "unnamed", true},
		{"invalid utf8", "a\xffb", "a_b", true},
		{"run of underscores", "a__b", "a_b", true},
		{"run of mixed", "a. _.b", "a_b", true},
		{"outer underscores", "__a__", "a", true},
		{"outer after replace", ".a.", "a", true},
		{"empty", "", "unnamed", true},
		{"only underscores", "___", "unnamed", true},
		{"literal unnamed", "unnamed", "unnamed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := Sanitize(tt.in)
			if got != tt.want || changed != tt.changed {
				t.Errorf("Sanitize(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestAssign(t *testing.T) {
	long30, long40, long50 := strings.Repeat("a", 30), strings.Repeat("b", 40), strings.Repeat("a", 50)
	b20 := strings.Repeat("b", 20)
	xTool := "c_" + h("a.b", "c") // makes (a_b, xTool) plainly named like (a.b, c) hashed
	tests := []struct {
		name  string
		pairs []Pair
		want  map[Pair]string
	}{
		{
			name:  "plain unchanged",
			pairs: []Pair{{"github", "create_issue"}, {"my-fs", "read-file"}},
			want: map[Pair]string{
				{"github", "create_issue"}: "mcp_github_create_issue",
				{"my-fs", "read-file"}:     "mcp_my-fs_read-file",
			},
		},
		{
			name:  "case kept",
			pairs: []Pair{{"GitHub", "CreateIssue"}, {"github", "createissue"}},
			want: map[Pair]string{
				{"GitHub", "CreateIssue"}: "mcp_GitHub_CreateIssue",
				{"github", "createissue"}: "mcp_github_createissue",
			},
		},
		{
			name:  "dots spaces unicode hashed",
			pairs: []Pair{{"my.server", "get"}, {"files", "read file"}, {"café", "über"}},
			want: map[Pair]string{
				{"my.server", "get"}:   "mcp_my_server_get_" + h("my.server", "get"),
				{"files", "read file"}: "mcp_files_read_file_" + h("files", "read file"),
				{"café", "über"}:       "mcp_caf_ber_" + h("café", "über"),
			},
		},
		{
			name:  "runs collapse",
			pairs: []Pair{{"a..b", "c  d"}, {"x__y", "z"}},
			want: map[Pair]string{
				{"a..b", "c  d"}: "mcp_a_b_c_d_" + h("a..b", "c  d"),
				{"x__y", "z"}:    "mcp_x_y_z_" + h("x__y", "z"),
			},
		},
		{
			name:  "empty becomes unnamed",
			pairs: []Pair{{"", ""}, {"srv", "___"}},
			want: map[Pair]string{
				{"", ""}:       "mcp_unnamed_unnamed_" + h("", ""),
				{"srv", "___"}: "mcp_srv_unnamed_" + h("srv", "___"),
			},
		},
		{
			name:  "split ambiguity hashes both",
			pairs: []Pair{{"a_b", "c"}, {"a", "b_c"}, {"a", "b"}},
			want: map[Pair]string{
				{"a_b", "c"}: "mcp_a_b_c_" + h("a_b", "c"),
				{"a", "b_c"}: "mcp_a_b_c_" + h("a", "b_c"),
				{"a", "b"}:   "mcp_a_b",
			},
		},
		{
			name:  "sanitized and plain share a name",
			pairs: []Pair{{"a.b", "c"}, {"a_b", "c"}},
			want: map[Pair]string{
				{"a.b", "c"}: "mcp_a_b_c_" + h("a.b", "c"),
				{"a_b", "c"}: "mcp_a_b_c_" + h("a_b", "c"),
			},
		},
		{
			name:  "hashed name equals another plain name",
			pairs: []Pair{{"a.b", "c"}, {"a_b", xTool}},
			want: map[Pair]string{
				{"a.b", "c"}:   "mcp_a_b_c_" + h("a.b", "c"),
				{"a_b", xTool}: "mcp_" + "a_b_" + xTool + "_" + h("a_b", xTool),
			},
		},
		{
			name:  "exactly 64 kept",
			pairs: []Pair{{strings.Repeat("a", 29), strings.Repeat("b", 30)}},
			want: map[Pair]string{
				{strings.Repeat("a", 29), strings.Repeat("b", 30)}: "mcp_" + strings.Repeat("a", 29) + "_" + strings.Repeat("b", 30),
			},
		},
		{
			name:  "65 cut to 64",
			pairs: []Pair{{strings.Repeat("a", 30), strings.Repeat("b", 30)}},
			want: map[Pair]string{
				{strings.Repeat("a", 30), strings.Repeat("b", 30)}: "mcp_" + strings.Repeat("a", 30) + "_" + strings.Repeat("b", 20) + "_" + h(strings.Repeat("a", 30), strings.Repeat("b", 30)),
			},
		},
		{
			name:  "long cut to 64",
			pairs: []Pair{{long30, long40}},
			want:  map[Pair]string{{long30, long40}: "mcp_" + long30 + "_" + b20 + "_" + h(long30, long40)},
		},
		{
			name:  "cut on separator drops it",
			pairs: []Pair{{long50, b20}},
			want:  map[Pair]string{{long50, b20}: "mcp_" + long50 + "_" + h(long50, b20)},
		},
		{
			name:  "duplicates",
			pairs: []Pair{{"s", "t"}, {"s", "t"}},
			want:  map[Pair]string{{"s", "t"}: "mcp_s_t"},
		},
		{
			name:  "none",
			pairs: nil,
			want:  map[Pair]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Assign(tt.pairs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Assign mismatch (-want +got):\n%s", diff)
			}
			checkNames(t, got)
		})
	}
}

func TestAssignLengths(t *testing.T) {
	tests := []struct {
		name    string
		p       Pair
		wantLen int
	}{
		{"64 plain", Pair{strings.Repeat("a", 29), strings.Repeat("b", 30)}, 64},
		{"65 cut", Pair{strings.Repeat("a", 30), strings.Repeat("b", 30)}, 64},
		{"very long", Pair{strings.Repeat("a", 300), strings.Repeat("b", 300)}, 64},
		{"long unicode", Pair{strings.Repeat("é", 100), "t"}, len("mcp_unnamed_t_") + 8},
		{"cut on separator", Pair{strings.Repeat("a", 50), strings.Repeat("b", 20)}, 63},
		{"sanitized, short, cut on separator", Pair{strings.Repeat("a", 50) + ".", "b"}, 63},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Assign([]Pair{tt.p})[tt.p]
			if len(got) != tt.wantLen {
				t.Errorf("len(%q) = %d, want %d", got, len(got), tt.wantLen)
			}
			if strings.Contains(got, "__") {
				t.Errorf("%q has a double underscore", got)
			}
		})
	}
}

// TestAssignHashCollision uses two tools whose level-1 hashes share 4 bytes (found by a
// birthday search) under a server long enough that their cut bases are equal too.
func TestAssignHashCollision(t *testing.T) {
	server := strings.Repeat("s", 60)
	a, b := Pair{server, "t7173"}, Pair{server, "t58953"}
	if h(a.Server, a.Tool) != h(b.Server, b.Tool) {
		t.Fatalf("test data: hashes differ")
	}
	level1 := "mcp_" + strings.Repeat("s", 51) + "_" + h(a.Server, a.Tool)
	got := Assign([]Pair{a, b, {server, "other"}})
	checkNames(t, got)
	for _, p := range []Pair{a, b} {
		if got[p] == level1 || len(got[p]) != MaxLen || !strings.HasPrefix(got[p], level1[:56]) {
			t.Errorf("name of %q = %q, want a re-hashed name of 64 characters", p, got[p])
		}
	}
	if want := "mcp_" + strings.Repeat("s", 51) + "_" + h(server, "other"); got[Pair{server, "other"}] != want {
		t.Errorf("bystander renamed: %q, want %q", got[Pair{server, "other"}], want)
	}
}

// TestAssignNULComponents covers pairs whose level-1 hash inputs are equal.
func TestAssignNULComponents(t *testing.T) {
	a, b := Pair{"a\x00b", "c"}, Pair{"a", "b\x00c"}
	got := Assign([]Pair{a, b})
	checkNames(t, got)
	if got[a] == got[b] {
		t.Errorf("both pairs named %q", got[a])
	}
}

func TestAssignOrderIndependent(t *testing.T) {
	pairs := []Pair{
		{"a_b", "c"}, {"a", "b_c"}, {"a.b", "c"}, {"a_b", "c_" + h("a.b", "c")},
		{"github", "create_issue"}, {"", ""}, {"unnamed", "unnamed"},
		{strings.Repeat("s", 60), "t7173"}, {strings.Repeat("s", 60), "t58953"},
		{strings.Repeat("x", 70), "y"}, {"café", "über"}, {"caf", "ber"},
	}
	want := Assign(pairs)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		shuffled := slices.Clone(pairs)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		shuffled = append(shuffled, shuffled[:i%len(shuffled)]...) // duplicates too
		if diff := cmp.Diff(want, Assign(shuffled)); diff != "" {
			t.Fatalf("order %d changed names (-want +got):\n%s", i, diff)
		}
	}
}

func TestAssignRandomSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", "_", ".", " ", "-", "é", "A", "1", "__"}
	word := func() string {
		var b strings.Builder
		for range rng.IntN(4) + rng.IntN(2)*rng.IntN(70) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	pairs := make([]Pair, 20000)
	for i := range pairs {
		pairs[i] = Pair{word(), word()}
	}
	got := Assign(pairs)
	checkNames(t, got)
	hashed := regexp.MustCompile(`_[0-9a-f]{8}$`)
	for p, n := range got {
		server, sc := Sanitize(p.Server)
		tool, tc := Sanitize(p.Tool)
		plain := Prefix + server + "_" + tool
		if n != plain && !hashed.MatchString(n) {
			t.Errorf("%q: %q is neither plain nor hashed", p, n)
		}
		if n == plain && (sc || tc) {
			t.Errorf("%q: sanitized name %q has no hash", p, n)
		}
	}
}

func TestTable(t *testing.T) {
	pairs := []Pair{{"github", "create_issue"}, {"a_b", "c"}, {"a", "b_c"}}
	tab := NewTable(pairs)
	want := []string{"mcp_a_b_c_" + h("a", "b_c"), "mcp_a_b_c_" + h("a_b", "c"), "mcp_github_create_issue"}
	slices.Sort(want)
	if diff := cmp.Diff(want, tab.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	tab.Names()[0] = "changed"
	if tab.Names()[0] != want[0] {
		t.Errorf("Names shares its slice with the caller")
	}
	for _, p := range pairs {
		n, ok := tab.Name(p)
		if !ok {
			t.Fatalf("Name(%v) missing", p)
		}
		back, ok := tab.Lookup(n)
		if !ok || back != p {
			t.Errorf("Lookup(%q) = %v, %v; want %v", n, back, ok, p)
		}
	}
	if _, ok := tab.Lookup("mcp_a_b_c"); ok {
		t.Errorf("Lookup of an ambiguous plain name succeeded")
	}
	if _, ok := tab.Name(Pair{"a", "b"}); ok {
		t.Errorf("Name of an unknown pair succeeded")
	}
}

func TestTableConcurrent(t *testing.T) {
	tab := NewTable([]Pair{{"s", "t"}, {"s", "u"}})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, n := range tab.Names() {
				p, ok := tab.Lookup(n)
				if back, _ := tab.Name(p); !ok || back != n {
					t.Errorf("Lookup(%q) = %v, %v; Name = %q", n, p, ok, back)
				}
			}
		})
	}
	wg.Wait()
}

// checkNames asserts the invariants every result of Assign must hold.
func checkNames(t *testing.T, names map[Pair]string) {
	t.Helper()
	owner := make(map[string]Pair, len(names))
	for p, n := range names {
		if !validName.MatchString(n) {
			t.Errorf("%q: invalid name %q", p, n)
		}
		if !strings.HasPrefix(n, Prefix) {
			t.Errorf("%q: %q lacks prefix %q", p, n, Prefix)
		}
		if other, dup := owner[n]; dup {
			t.Errorf("%q names both %q and %q", n, other, p)
		}
		owner[n] = p
	}
}
