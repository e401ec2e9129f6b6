package demoserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxExpressionChars bounds the input; no useful arithmetic needs more.
const maxExpressionChars = 10_000

// caretContext is the longest expression echoed back with a caret under the
// error position; longer ones get the position only.
const caretContext = 200

type calculateArgs struct {
	Expression string `json:"expression"`
}

func calculateTool() server.ServerTool {
	tool := newTool("calculate",
		"Evaluates an arithmetic expression exactly as written and returns the number. "+
			"Operators: + - * / % (remainder) ^ (power, right-associative; -2^2 = -4), parentheses, unary minus, "+
			"decimals and exponents (1.5e3). Constants: pi, e. Functions: sqrt, abs, round, floor, ceil, "+
			"exp, ln, log10, sin, cos, tan (radians), min(a, b, …), max(a, b, …). "+
			"Division by zero and syntax errors are reported with the position of the problem.",
		hints("Calculator", true),
		mcp.WithString("expression",
			mcp.Required(),
			mcp.MinLength(1),
			mcp.MaxLength(maxExpressionChars),
			mcp.Description("Expression to evaluate, e.g. \"(2 + 3) * 4 ^ 2 / sqrt(16)\"."),
		),
	)
	return server.ServerTool{Tool: tool, Handler: mcp.NewTypedToolHandler(calculate)}
}

func calculate(_ context.Context, _ mcp.CallToolRequest, args calculateArgs) (*mcp.CallToolResult, error) {
	v, err := evaluate(args.Expression)
	if err != nil {
		return mcp.NewToolResultError(describeExprError(args.Expression, err)), nil
	}
	return mcp.NewToolResultText(formatNumber(v)), nil
}

// describeExprError explains err and, for short one-line expressions, shows
// where it happened:
//
//	cannot evaluate: at position 3: division by zero
//	  1 / 0
//	    ^
func describeExprError(expr string, err error) string {
	msg := "cannot evaluate: " + err.Error()
	var ee *exprError
	if !errors.As(err, &ee) || len([]rune(expr)) > caretContext || strings.ContainsAny(expr, "\n\r\t") {
		return msg
	}
	return fmt.Sprintf("%s\n  %s\n  %s^", msg, expr, strings.Repeat(" ", ee.Pos-1))
}
