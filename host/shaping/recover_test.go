package shaping

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plughost/plughost/host/callresult"
)

func TestRecover(t *testing.T) {
	boom := errors.New("server said no")
	tests := []struct {
		name    string
		next    Handler
		wantErr string // substring; "" = no error
	}{
		{name: "result passes", next: returning(textResult("ok"), nil)},
		{name: "error passes", next: returning(callresult.Result{}, boom), wantErr: "server said no"},
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
				if err != nil || res.Text() != "ok" {
					t.Fatalf("got %v, %v", res, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || res.Content != nil {
				t.Errorf("got %v, %v; want error containing %q", res, err, tt.wantErr)
			}
		})
	}
}
