package shaping

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRecover(t *testing.T) {
	boom := errors.New("server said no")
	tests := []struct {
		name    string
		next    Handler
		wantErr string // substring; "" = no error
	}{
		{name: "result passes", next: returning(textResult("ok"), nil)},
		{name: "error passes", next: returning(nil, boom), wantErr: "server said no"},
		{
			name:    "panic becomes this call's error",
			next:    func(context.Context, Call) (Result, error) { panic("index out of range") },
			wantErr: `tool "mcp_srv_big": internal error in plughost while handling the call (a bug, logged with its stack; the server is unaffected): index out of range`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Recover(nil)(tt.next)(context.Background(), testCall)
			if tt.wantErr == "" {
				if err != nil || res.MCP == nil {
					t.Fatalf("got %v, %v", res, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || res.MCP != nil {
				t.Errorf("got %v, %v; want error containing %q", res, err, tt.wantErr)
			}
		})
	}
}
