package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/pluginapi"
)

func TestBackoffDoublesUpToMax(t *testing.T) {
	b := Backoff{Initial: time.Second, Max: 5 * time.Second}
	var got []time.Duration
	d := time.Duration(0)
	for i := 0; i < 5; i++ {
		d = b.next(d)
		got = append(got, d)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("delays %v, want %v", got, want)
		}
	}
}

func TestPhaseErrorNamesTheSetting(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want []string
	}{
		{"context deadline", context.DeadlineExceeded, []string{"initialize: no answer within 2s", "timeouts.initialize_seconds"}},
		{"typed timeout", &pluginapi.Error{Op: "open", Kind: pluginapi.KindTimeout, Err: errors.New("late")}, []string{"timeouts.initialize_seconds"}},
		{"other", errors.New("boom"), []string{"initialize: boom"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := phaseError("initialize", 2*time.Second, "initialize_seconds", c.err).Error()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			if c.name == "other" && strings.Contains(got, "timeouts.") {
				t.Errorf("%q blames a timeout for a plain failure", got)
			}
		})
	}
}

func TestCallWhenNotConnected(t *testing.T) {
	s := New(Spec{Name: "gh", Transport: "stdio"}, nil, nil)
	s.update(func(st *Status) { st.State, st.LastError = StateError, "initialize: boom" })
	_, err := s.CallTool(context.Background(), ToolCall{Tool: "x"})
	if !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), `"gh"`) || !strings.Contains(err.Error(), "initialize: boom") {
		t.Fatalf("got %v; want ErrNotConnected naming the server and its last error", err)
	}
}
