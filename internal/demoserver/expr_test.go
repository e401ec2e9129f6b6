package demoserver

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		{"1", 1},
		{"  42  ", 42},
		{"1.5", 1.5},
		{".5", 0.5},
		{"2.", 2},
		{"1e3", 1000},
		{"2.5E-1", 0.25},
		{"1 + 2 * 3", 7},
		{"(1 + 2) * 3", 9},
		{"10 - 4 - 3", 3},
		{"100 / 10 / 5", 2},
		{"7 % 4", 3},
		{"-7 % 4", -3},
		{"2 + 10 % 4 * 3", 8},
		{"2 ^ 3 ^ 2", 512},
		{"(2 ^ 3) ^ 2", 64},
		{"-2 ^ 2", -4},
		{"(-2) ^ 2", 4},
		{"2 ^ -1", 0.5},
		{"--3", 3},
		{"-(1 + 2)", -3},
		{"+4", 4},
		{"3 * -2", -6},
		{"2 * 3 ^ 2", 18},
		{"sqrt(16) + abs(-3)", 7},
		{"round(2.5) + floor(2.7) + ceil(2.1)", 8},
		{"min(3, 1, 2) + max(4, 9, -1)", 10},
		{"max(2)", 2},
		{"SQRT(9)", 3},
		{"ln(e)", 1},
		{"log10(1000)", 3},
		{"exp(0)", 1},
		{"cos(0) + sin(0)", 1},
		{"2 * pi", 2 * math.Pi},
		{"((((1))))", 1},
		{"1/3", 1.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := evaluate(tt.expr)
			if err != nil {
				t.Fatalf("evaluate(%q) error: %v", tt.expr, err)
			}
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("evaluate(%q) = %v, want %v", tt.expr, got, tt.want)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	tests := []struct {
		expr    string
		wantPos int
		wantMsg string
	}{
		{"", 1, "unexpected end of expression"},
		{"   ", 4, "unexpected end of expression"},
		{"1 / 0", 3, "division by zero"},
		{"1 / (2 - 2)", 3, "division by zero"},
		{"5 % 0", 3, "remainder by zero"},
		{"0 ^ -1", 3, "division by zero"},
		{"1 +", 4, "unexpected end of expression"},
		{"1 + * 2", 5, `unexpected '*'`},
		{"(1 + 2", 7, `expected ")" to close "(" at position 1`},
		{"1 + 2)", 6, `unexpected ')'`},
		{"2 3", 3, `unexpected '3'`},
		{"2e", 2, `unexpected 'e'`},
		{"foo + 1", 1, `unknown name "foo"`},
		{"foo(1)", 1, `unknown function "foo"`},
		{"sqrt 4", 6, `expected "(" after function sqrt`},
		{"sqrt(-1)", 1, "sqrt: argument must not be negative"},
		{"ln(0)", 1, "ln: argument must be positive"},
		{"sqrt(1, 2)", 1, "sqrt takes exactly one argument, got 2"},
		{"max()", 1, "max needs at least one argument"},
		{"max(1 2)", 7, `expected "," or ")"`},
		{"1 $ 2", 3, `unexpected '$'`},
		{"(-8) ^ 0.5", 6, "not a real number"},
		{"10 ^ 400", 4, "too large"},
		{"1e999", 1, "invalid number"},
		{"π", 1, `unknown name "π"`},
		{strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000), 0, "nested too deeply"},
		{strings.Repeat("-", 1000) + "1", 0, "nested too deeply"},
	}
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 20 {
			name = name[:20] + "…"
		}
		t.Run(name, func(t *testing.T) {
			v, err := evaluate(tt.expr)
			var ee *exprError
			if !errors.As(err, &ee) {
				t.Fatalf("evaluate(%q) = %v, %v; want *exprError", tt.expr, v, err)
			}
			if tt.wantPos != 0 && ee.Pos != tt.wantPos {
				t.Errorf("evaluate(%q) error position = %d, want %d (%v)", tt.expr, ee.Pos, tt.wantPos, err)
			}
			if !strings.Contains(ee.Msg, tt.wantMsg) {
				t.Errorf("evaluate(%q) error = %q, want it to contain %q", tt.expr, ee.Msg, tt.wantMsg)
			}
		})
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{7, "7"},
		{-12, "-12"},
		{1.0 / 3, "0.3333333333333333"},
		{1.5, "1.5"},
		{1 << 53, "9007199254740992"},
		{1e21, "1e+21"},
		{1e-7, "1e-07"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.in); got != tt.want {
			t.Errorf("formatNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDescribeExprError(t *testing.T) {
	_, err := evaluate("1 / 0")
	got := describeExprError("1 / 0", err)
	want := "cannot evaluate: at position 3: division by zero\n  1 / 0\n    ^"
	if got != want {
		t.Errorf("describeExprError:\n got %q\nwant %q", got, want)
	}
}

func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{"1+2*3", "-(2^3)%5", "max(1,2,3)/sqrt(4)", "((1)", "1e5e5", ".", "π"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := evaluate(expr)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Errorf("evaluate(%q) = %v without error", expr, v)
		}
		var ee *exprError
		if err != nil && (!errors.As(err, &ee) || ee.Pos < 1 || ee.Pos > len([]rune(expr))+1) {
			t.Errorf("evaluate(%q) error %v has a bad position", expr, err)
		}
	})
}
