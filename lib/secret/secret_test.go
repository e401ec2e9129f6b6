package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const value = "hunter2-very-secret"

type holder struct {
	Name  string
	Token String
	Ptr   *String
	Env   map[string]String
	List  []String
}

func TestFormatNeverShowsValue(t *testing.T) {
	s := String(value)
	h := holder{Name: "n", Token: s, Ptr: &s, Env: map[string]String{"K": s}, List: []String{s}}
	args := []struct {
		name string
		arg  any
	}{
		{"value", s},
		{"pointer", &s},
		{"struct", h},
		{"struct pointer", &h},
		{"map", map[string]String{"TOKEN": s}},
		{"slice", []String{s, s}},
		{"any map", map[string]any{"x": s}},
	}
	verbs := []string{"%v", "%s", "%+v", "%#v", "%q", "%x", "%X", "%10s", "%-8v", "%d", "%T"}
	for _, a := range args {
		for _, verb := range verbs {
			t.Run(a.name+" "+verb, func(t *testing.T) {
				got := fmt.Sprintf(verb, a.arg)
				if strings.Contains(got, value) || strings.Contains(got, fmt.Sprintf("%x", value)) ||
					strings.Contains(strings.ToLower(got), fmt.Sprintf("%x", value)) {
					t.Fatalf("Sprintf(%q) = %q shows the secret", verb, got)
				}
			})
		}
	}
	t.Run("Sprint and Sprintln", func(t *testing.T) {
		for _, got := range []string{fmt.Sprint(s, h), fmt.Sprintln(s, &h), s.String(), s.GoString()} {
			if strings.Contains(got, value) {
				t.Fatalf("%q shows the secret", got)
			}
		}
	})
}

func TestFormatOutput(t *testing.T) {
	s := String(value)
	tests := []struct {
		format string
		arg    any
		want   string
	}{
		{"%v", s, Masked},
		{"%s", s, Masked},
		{"%+v", s, Masked},
		{"%#v", s, `secret.String("****")`},
		{"%q", s, `"****"`},
		{"%6s|", s, "  ****|"},
		{"%v", String(""), ""},
		{"%#v", String(""), `secret.String("")`},
		{"%v", holder{Name: "n", Token: s}, "{n **** <nil> map[] []}"},
		{"%+v", map[string]String{"A": s, "B": ""}, "map[A:**** B:]"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, fmt.Sprintf(tt.format, tt.arg)); diff != "" {
				t.Errorf("Sprintf(%q) mismatch (-want +got):\n%s", tt.format, diff)
			}
		})
	}
}

func TestMarshalJSON(t *testing.T) {
	s := String(value)
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"value", s, `"****"`},
		{"empty", String(""), `""`},
		{"pointer", &s, `"****"`},
		{"map", map[string]String{"TOKEN": s}, `{"TOKEN":"****"}`},
		{"struct", holder{Name: "n", Token: s, Ptr: &s, List: []String{s}}, `{"Name":"n","Token":"****","Ptr":"****","Env":null,"List":["****"]}`},
		{"any", map[string]any{"x": []any{s}}, `{"x":["****"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("json.Marshal mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]String
		wantErr bool
	}{
		{"plain string", `{"A":"x y"}`, map[string]String{"A": "x y"}, false},
		{"escaped", `{"A":"a\"b\u00e9"}`, map[string]String{"A": "a\"bé"}, false},
		{"null", `{"A":null}`, map[string]String{"A": ""}, false},
		{"number", `{"A":12}`, nil, true},
		{"object", `{"A":{}}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]String
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if got["A"].Reveal() != string(tt.want["A"]) {
				t.Errorf("Reveal() = %q", got["A"].Reveal())
			}
		})
	}
}

func TestMask(t *testing.T) {
	for _, tt := range []struct{ in, want string }{{"", ""}, {"x", Masked}, {value, Masked}} {
		t.Run(tt.in, func(t *testing.T) {
			if got := Mask(tt.in); got != tt.want {
				t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestReveal(t *testing.T) {
	if got := String(value).Reveal(); got != value {
		t.Errorf("Reveal() = %q", got)
	}
}

func TestSlog(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	log.Info("x", "token", String(value), "group", slog.GroupValue(slog.Any("t", String(value))))
	if strings.Contains(buf.String(), value) || !strings.Contains(buf.String(), Masked) {
		t.Errorf("slog output %q", buf.String())
	}
}
