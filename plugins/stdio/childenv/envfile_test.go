package childenv

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestParseEnvFile(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  map[string]string
	}{
		{"empty", "", map[string]string{}},
		{"blank and comments", "\n   \n# comment\n   # indented comment\n\t\n", map[string]string{}},
		{"simple", "A=1\nB=two words\n", map[string]string{"A": "1", "B": "two words"}},
		{"no trailing newline", "A=1", map[string]string{"A": "1"}},
		{"spaces around key and value", "  A  =   v 1  \n", map[string]string{"A": "v 1"}},
		{"empty value", "A=\nB=   \n", map[string]string{"A": "", "B": ""}},
		{"export prefix", "export A=1\nexport\tB=2\nexport   C = 3\n", map[string]string{"A": "1", "B": "2", "C": "3"}},
		{"key named export", "export=1\nexporter=2\n", map[string]string{"export": "1", "exporter": "2"}},
		{"double quotes stripped", `A="  spaced  "`, map[string]string{"A": "  spaced  "}},
		{"single quotes stripped", `A='x y'`, map[string]string{"A": "x y"}},
		{"empty quotes", `A=""` + "\n" + `B=''`, map[string]string{"A": "", "B": ""}},
		{"no unescaping inside quotes", `A="a\nb $HOME 'q'"`, map[string]string{"A": `a\nb $HOME 'q'`}},
		{"only the outer pair stripped", `A=""x""`, map[string]string{"A": `"x"`}},
		{"mismatched quotes kept literally when not opening", `A=it's`, map[string]string{"A": "it's"}},
		{"inner quote kept", `A=a"b"`, map[string]string{"A": `a"b"`}},
		{"equals in value", "URL=postgres://u:p@h/db?a=b\n", map[string]string{"URL": "postgres://u:p@h/db?a=b"}},
		{"hash in value is not a comment", "A=v # note\nB=#x\n", map[string]string{"A": "v # note", "B": "#x"}},
		{"CRLF", "A=1\r\nB=\"2\"\r\n\r\n# c\r\n", map[string]string{"A": "1", "B": "2"}},
		{"BOM", "\ufeffA=1\n", map[string]string{"A": "1"}},
		{"later duplicate wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"underscore and digits", "_A1=x\na_b_2=y\n", map[string]string{"_A1": "x", "a_b_2": "y"}},
		{"unicode value", "A=héllo ☃\n", map[string]string{"A": "héllo ☃"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEnvFile(".env", strings.NewReader(tt.input))
			if err != nil {
				t.Fatalf("ParseEnvFile() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseEnvFile() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEnvFileErrors(t *testing.T) {
	const secret = "hunter2-SECRET"
	tests := []struct {
		name  string
		input string
		want  *ParseError
	}{
		{"no equals", "A=1\n" + secret + "\n", &ParseError{Name: "x.env", Line: 2, Reason: reasonNoEquals}},
		{"export without equals", "export " + secret, &ParseError{Name: "x.env", Line: 1, Reason: reasonNoEquals}},
		{"no key", "\n\n=" + secret, &ParseError{Name: "x.env", Line: 3, Reason: reasonNoKey}},
		{"blank key", "  =" + secret, &ParseError{Name: "x.env", Line: 1, Reason: reasonNoKey}},
		{"key starts with digit", "1A=" + secret, &ParseError{Name: "x.env", Line: 1, Reason: reasonBadKey}},
		{"key with dash", "MY-KEY=" + secret, &ParseError{Name: "x.env", Line: 1, Reason: reasonBadKey}},
		{"key with space", "MY KEY=" + secret, &ParseError{Name: "x.env", Line: 1, Reason: reasonBadKey}},
		{"secret as key", secret + "=" + secret, &ParseError{Name: "x.env", Line: 1, Reason: reasonBadKey}},
		{"unclosed double quote", `TOKEN="` + secret, &ParseError{Name: "x.env", Line: 1, Key: "TOKEN", Reason: reasonUnclosedQuote}},
		{"unclosed single quote", `TOKEN='` + secret + `"`, &ParseError{Name: "x.env", Line: 1, Key: "TOKEN", Reason: reasonUnclosedQuote}},
		{"lone quote", `TOKEN="`, &ParseError{Name: "x.env", Line: 1, Key: "TOKEN", Reason: reasonUnclosedQuote}},
		{"comment after quotes", `TOKEN="` + secret + `" # note`, &ParseError{Name: "x.env", Line: 1, Key: "TOKEN", Reason: reasonUnclosedQuote}},
		{"multi-line value", "A=1\r\nTOKEN=\"" + secret + "\r\nmore\"\r\n", &ParseError{Name: "x.env", Line: 2, Key: "TOKEN", Reason: reasonUnclosedQuote}},
		{"NUL in value", "TOKEN=" + secret + "\x00", &ParseError{Name: "x.env", Line: 1, Key: "TOKEN", Reason: reasonNUL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEnvFile("x.env", strings.NewReader(tt.input))
			if got != nil {
				t.Errorf("ParseEnvFile() = %v, want nil map", got)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseEnvFile() error = %v, want *ParseError", err)
			}
			if diff := cmp.Diff(tt.want, pe); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error echoes the secret: %v", err)
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := ParseEnvFile("/etc/app.env", strings.NewReader("A=1\nTOKEN='abc\n"))
	want := `env_file /etc/app.env line 2: TOKEN: ` + reasonUnclosedQuote
	if diff := cmp.Diff(want, errString(err)); diff != "" {
		t.Errorf("message mismatch (-want +got):\n%s", diff)
	}
	_, err = ParseEnvFile("a.env", strings.NewReader("just text"))
	want = `env_file a.env line 1: missing "=": write KEY=value (a comment line starts with #)`
	if diff := cmp.Diff(want, errString(err)); diff != "" {
		t.Errorf("message mismatch (-want +got):\n%s", diff)
	}
}

func TestParseEnvFileReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ParseEnvFile("r.env", iotest.ErrReader(boom))
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want wrapping %v", err, boom)
	}
}

func FuzzParseEnvFile(f *testing.F) {
	for _, s := range []string{
		"", "A=1", "export A=1\n", "A=\"x\"\r\n", "A='x", "#c\n\nB = y ", "1=2", "=x",
		"\ufeffA=1", "A=\x00", "export\tB='q'", "K=\"a\" # c", "A==", "A=\"\"\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		if len(input) > 256 {
			// Lines are parsed one by one: a few lines find every bug, and
			// minimizing a long input takes the fuzzer minutes.
			t.Skip()
		}
		got, err := ParseEnvFile("fuzz.env", strings.NewReader(input))
		if err != nil {
			checkParseError(t, input, err)
			return
		}
		// Map order is random: nothing here may branch on it, or coverage
		// becomes flaky and the fuzzer stalls minimizing.
		for k, v := range got {
			if !validKey(k) {
				t.Fatalf("invalid key %q accepted", k)
			} else if strings.ContainsAny(v, "\n\x00") {
				t.Fatalf("value of %s holds a newline or NUL", k)
			}
		}
		checkRoundTrip(t, input)
	})
}

// checkParseError asserts err is a *ParseError built only from fixed texts
// and a valid key, so it cannot carry a value.
func checkParseError(t *testing.T, input string, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
	switch pe.Reason {
	case reasonNoEquals, reasonNoKey, reasonBadKey, reasonUnclosedQuote, reasonNUL:
	default:
		t.Fatalf("unexpected reason %q", pe.Reason)
	}
	lines := strings.Split(strings.TrimPrefix(input, "\ufeff"), "\n")
	if pe.Line < 1 || pe.Line > len(lines) {
		t.Fatalf("line %d out of range 1..%d", pe.Line, len(lines))
	}
	if pe.Key != "" && !validKey(pe.Key) {
		t.Fatalf("error carries invalid key %q", pe.Key)
	}
}

// checkRoundTrip asserts that every value parsed from input, written back
// double-quoted, parses to itself.
func checkRoundTrip(t *testing.T, input string) {
	t.Helper()
	got, _ := ParseEnvFile("fuzz.env", strings.NewReader(input))
	lines := make([]string, 0, len(got))
	for k, v := range got {
		lines = append(lines, "export "+k+"=\""+v+"\"")
	}
	again, err := ParseEnvFile("round.env", strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatalf("round trip failed: %v", err)
	}
	if !maps.Equal(got, again) {
		t.Fatalf("round trip changed the variables: %q became %q", got, again)
	}
}
