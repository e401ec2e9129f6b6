package demoserver

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// maxExprDepth bounds nesting so a hostile expression such as "((((…" cannot
// exhaust the stack.
const maxExprDepth = 256

// exprError is a syntax or evaluation error in an arithmetic expression.
type exprError struct {
	// Pos is the 1-based character (rune) position the error points at.
	Pos int
	// Msg says what is wrong at Pos.
	Msg string
}

func (e *exprError) Error() string {
	return fmt.Sprintf("at position %d: %s", e.Pos, e.Msg)
}

// evaluate computes the value of an arithmetic expression.
//
// Supported: decimal numbers (with optional exponent: 1.5e3), the binary
// operators + - * / % ^ (^ is exponentiation and binds right to left, tighter
// than unary minus, so -2^2 is -4), unary + and -, parentheses, the constants
// pi and e, and the functions sqrt, abs, round, floor, ceil, exp, ln, log10,
// sin, cos, tan (one argument) and min, max (one or more arguments).
// Division or remainder by zero, a non-finite result and bad syntax return an
// *exprError pointing at the offending position.
func evaluate(expr string) (float64, error) {
	p := &exprParser{src: []rune(expr)}
	v, err := p.parseExpr(0)
	if err != nil {
		return 0, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return 0, p.errorf(p.pos, "unexpected %q", p.src[p.pos])
	}
	return v, nil
}

// exprParser is a recursive-descent parser that evaluates as it parses.
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/" | "%") unary }
//	unary   = ("+" | "-") unary | power
//	power   = primary [ "^" unary ]
//	primary = number | name [ "(" expr { "," expr } ")" ] | "(" expr ")"
type exprParser struct {
	src []rune
	pos int
}

func (p *exprParser) errorf(pos int, format string, args ...any) *exprError {
	return &exprError{Pos: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) skipSpace() {
	for p.pos < len(p.src) && unicode.IsSpace(p.src[p.pos]) {
		p.pos++
	}
}

// peek returns the next non-space rune, or 0 at the end of input.
func (p *exprParser) peek() rune {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *exprParser) parseExpr(depth int) (float64, error) {
	if depth > maxExprDepth {
		return 0, p.errorf(p.pos, "expression nested too deeply (more than %d levels)", maxExprDepth)
	}
	left, err := p.parseTerm(depth)
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		if op != '+' && op != '-' {
			return left, nil
		}
		opPos := p.pos
		p.pos++
		right, err := p.parseTerm(depth)
		if err != nil {
			return 0, err
		}
		if op == '+' {
			left += right
		} else {
			left -= right
		}
		if err := p.checkFinite(left, opPos); err != nil {
			return 0, err
		}
	}
}

func (p *exprParser) parseTerm(depth int) (float64, error) {
	left, err := p.parseUnary(depth)
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			return left, nil
		}
		opPos := p.pos
		p.pos++
		right, err := p.parseUnary(depth)
		if err != nil {
			return 0, err
		}
		if left, err = p.applyTermOp(op, opPos, left, right); err != nil {
			return 0, err
		}
	}
}

func (p *exprParser) applyTermOp(op rune, opPos int, left, right float64) (float64, error) {
	var v float64
	switch op {
	case '*':
		v = left * right
	case '/':
		if right == 0 {
			return 0, p.errorf(opPos, "division by zero")
		}
		v = left / right
	case '%':
		if right == 0 {
			return 0, p.errorf(opPos, "remainder by zero")
		}
		v = math.Mod(left, right)
	}
	return v, p.checkFinite(v, opPos)
}

func (p *exprParser) parseUnary(depth int) (float64, error) {
	if depth > maxExprDepth {
		return 0, p.errorf(p.pos, "expression nested too deeply (more than %d levels)", maxExprDepth)
	}
	switch p.peek() {
	case '-':
		p.pos++
		v, err := p.parseUnary(depth + 1)
		return -v, err
	case '+':
		p.pos++
		return p.parseUnary(depth + 1)
	}
	return p.parsePower(depth)
}

func (p *exprParser) parsePower(depth int) (float64, error) {
	base, err := p.parsePrimary(depth)
	if err != nil {
		return 0, err
	}
	if p.peek() != '^' {
		return base, nil
	}
	opPos := p.pos
	p.pos++
	exp, err := p.parseUnary(depth + 1)
	if err != nil {
		return 0, err
	}
	if base == 0 && exp < 0 {
		return 0, p.errorf(opPos, "division by zero (zero to a negative power)")
	}
	v := math.Pow(base, exp)
	if math.IsNaN(v) {
		return 0, p.errorf(opPos, "result is not a real number (negative base with fractional exponent)")
	}
	return v, p.checkFinite(v, opPos)
}

func (p *exprParser) parsePrimary(depth int) (float64, error) {
	c := p.peek()
	switch {
	case c == 0:
		return 0, p.errorf(p.pos, "unexpected end of expression, expected a number, a name or \"(\"")
	case c == '(':
		open := p.pos
		p.pos++
		v, err := p.parseExpr(depth + 1)
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, p.errorf(p.pos, "expected \")\" to close \"(\" at position %d", open+1)
		}
		p.pos++
		return v, nil
	case c == '.' || isDigit(c):
		return p.parseNumber()
	case unicode.IsLetter(c) || c == '_':
		return p.parseName(depth)
	}
	return 0, p.errorf(p.pos, "unexpected %q, expected a number, a name or \"(\"", c)
}

func (p *exprParser) parseNumber() (float64, error) {
	start := p.pos
	p.skipDigits()
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		p.skipDigits()
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		save := p.pos
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.skipDigits()
		} else {
			p.pos = save // "2e" is 2 followed by the name e; let the caller complain
		}
	}
	text := string(p.src[start:p.pos])
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, p.errorf(start, "invalid number %q", text)
	}
	return v, p.checkFinite(v, start)
}

func (p *exprParser) skipDigits() {
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		p.pos++
	}
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func (p *exprParser) parseName(depth int) (float64, error) {
	start := p.pos
	for p.pos < len(p.src) && (unicode.IsLetter(p.src[p.pos]) || isDigit(p.src[p.pos]) || p.src[p.pos] == '_') {
		p.pos++
	}
	name := strings.ToLower(string(p.src[start:p.pos]))
	if p.peek() != '(' {
		if v, ok := exprConstants[name]; ok {
			return v, nil
		}
		if _, ok := exprFuncs[name]; ok {
			return 0, p.errorf(p.pos, "expected \"(\" after function %s", name)
		}
		return 0, p.errorf(start, "unknown name %q (constants: pi, e)", name)
	}
	fn, ok := exprFuncs[name]
	if !ok {
		return 0, p.errorf(start, "unknown function %q (known: %s)", name, knownFuncs())
	}
	p.pos++ // "("
	args, err := p.parseArgs(depth)
	if err != nil {
		return 0, err
	}
	return fn.call(p, start, name, args)
}

func (p *exprParser) parseArgs(depth int) ([]float64, error) {
	var args []float64
	if p.peek() == ')' {
		p.pos++
		return args, nil
	}
	for {
		v, err := p.parseExpr(depth + 1)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return args, nil
		default:
			return nil, p.errorf(p.pos, "expected \",\" or \")\" in argument list")
		}
	}
}

func (p *exprParser) checkFinite(v float64, pos int) error {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return p.errorf(pos, "result is too large to represent")
	}
	return nil
}

// exprFunc is a built-in function; variadic functions take at least one
// argument, the others exactly one.
type exprFunc struct {
	one      func(float64) float64
	variadic func(float64, float64) float64
	// domain, when set, rejects an argument outside the function's domain.
	domain func(float64) string
}

func (f exprFunc) call(p *exprParser, pos int, name string, args []float64) (float64, error) {
	if f.variadic != nil {
		if len(args) == 0 {
			return 0, p.errorf(pos, "%s needs at least one argument", name)
		}
		v := args[0]
		for _, a := range args[1:] {
			v = f.variadic(v, a)
		}
		return v, nil
	}
	if len(args) != 1 {
		return 0, p.errorf(pos, "%s takes exactly one argument, got %d", name, len(args))
	}
	if f.domain != nil {
		if msg := f.domain(args[0]); msg != "" {
			return 0, p.errorf(pos, "%s: %s", name, msg)
		}
	}
	v := f.one(args[0])
	return v, p.checkFinite(v, pos)
}

func positiveOnly(x float64) string {
	if x <= 0 {
		return "argument must be positive"
	}
	return ""
}

var exprFuncs = map[string]exprFunc{
	"sqrt": {one: math.Sqrt, domain: func(x float64) string {
		if x < 0 {
			return "argument must not be negative"
		}
		return ""
	}},
	"abs":   {one: math.Abs},
	"round": {one: math.Round},
	"floor": {one: math.Floor},
	"ceil":  {one: math.Ceil},
	"exp":   {one: math.Exp},
	"ln":    {one: math.Log, domain: positiveOnly},
	"log10": {one: math.Log10, domain: positiveOnly},
	"sin":   {one: math.Sin},
	"cos":   {one: math.Cos},
	"tan":   {one: math.Tan},
	"min":   {variadic: math.Min},
	"max":   {variadic: math.Max},
}

var exprConstants = map[string]float64{"pi": math.Pi, "e": math.E}

func knownFuncs() string {
	return strings.Join(slices.Sorted(maps.Keys(exprFuncs)), ", ")
}

// formatNumber renders a result the way a person writes it: integers without
// an exponent or fraction (up to 1e21), everything else in the shortest form
// that parses back to the same float64.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		if v == 0 {
			return "0" // not "-0"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
