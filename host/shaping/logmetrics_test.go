package shaping

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/host/callresult"
)

func TestLogMetrics(t *testing.T) {
	secretArg := []byte(`{"token":"hunter2"}`)
	tests := []struct {
		name    string
		next    Handler
		fail    []string
		budget  int
		want    MetricsSnapshot
		wantLog string
	}{
		{name: "plain call", next: returning(textResult("ok"), nil), budget: 100, want: MetricsSnapshot{Calls: 1}, wantLog: "tool call:"},
		{name: "failed call", next: returning(callresult.Result{}, errors.New("down")), budget: 100, want: MetricsSnapshot{Calls: 1, Failed: 1}, wantLog: "tool call failed"},
		{
			name: "tool error", next: returning(callresult.Result{IsError: true, Content: []callresult.Content{callresult.NewText("bad")}}, nil),
			budget: 100, want: MetricsSnapshot{Calls: 1, ToolErrors: 1}, wantLog: "is_error=true",
		},
		{name: "truncated and saved", next: returning(textResult(repeat("a", 30)), nil), budget: 10, want: MetricsSnapshot{Calls: 1, Truncated: 1, Saved: 1}, wantLog: "truncated=true"},
		{name: "spilled", next: returning(textResult(repeat("a", 30)), nil), fail: []string{KindMCP}, budget: 10, want: MetricsSnapshot{Calls: 1, Truncated: 1, Spilled: 1}, wantLog: ".artifacts/tool/"},
		{
			name: "unsaved warns", next: returning(textResult(repeat("a", 30)), nil), fail: []string{KindMCP, KindTool}, budget: 10,
			want: MetricsSnapshot{Calls: 1, Truncated: 1, Unsaved: 1}, wantLog: "[WARN]  tool result could not be saved",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Debug})
			var m Metrics
			saver := newMemSaver(tt.fail...)
			h := Chain(tt.next, LogMetrics(logger, &m), Bound(tt.budget), Spillover(saver), Artifact(tt.budget, saver))
			call := testCall
			call.Args = secretArg
			h(context.Background(), call)
			if diff := cmp.Diff(tt.want, m.Snapshot()); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
			if !strings.Contains(buf.String(), tt.wantLog) {
				t.Errorf("log lacks %q:\n%s", tt.wantLog, buf.String())
			}
			if strings.Contains(buf.String(), "hunter2") || strings.Contains(buf.String(), "aaaa") {
				t.Errorf("arguments or result text were logged:\n%s", buf.String())
			}
		})
	}
}

// At info level a call logs nothing but a payload that could not be saved,
// which still warns; the counts are the same as at debug level.
func TestLogMetricsAtInfoLevel(t *testing.T) {
	for _, tt := range []struct {
		name    string
		fail    []string
		wantLog string
	}{
		{name: "saved", wantLog: ""},
		{name: "unsaved", fail: []string{KindMCP, KindTool}, wantLog: "[WARN]  tool result could not be saved"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Info})
			var m Metrics
			saver := newMemSaver(tt.fail...)
			h := Chain(returning(textResult(repeat("a", 30)), nil), LogMetrics(logger, &m), Bound(10), Spillover(saver), Artifact(10, saver))
			h(context.Background(), testCall)
			if m.Snapshot().Calls != 1 || m.Snapshot().Truncated != 1 {
				t.Errorf("metrics %+v: want the call counted, truncated", m.Snapshot())
			}
			if tt.wantLog == "" && buf.Len() > 0 || !strings.Contains(buf.String(), tt.wantLog) {
				t.Errorf("log %q, want %q", buf.String(), tt.wantLog)
			}
		})
	}
}
