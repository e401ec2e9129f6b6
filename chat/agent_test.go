package chat_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/chat"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/fakeopenai"
)

var fileRef = regexp.MustCompile(`\[file:([^\]]+)\]`)

// TestSearchUnlockCallReadArtifact is a whole session: the model searches,
// gets a tool unlocked, calls it, reads a page of its large result from
// the saved artifact, and answers.
func TestSearchUnlockCallReadArtifact(t *testing.T) {
	both(t, func(t *testing.T, stream bool) {
		h := startHost(t, map[string]any{
			"discovery":             map[string]any{"enabled": true, "ttl": 2},
			"max_inline_text_chars": 256,
		})
		srv := fakeopenai.Start(t, fakeopenai.Options{Stream: stream},
			func(r fakeopenai.Request) fakeopenai.Reply {
				if !offered(r, "tool_search_tool_bm25") || offered(r, "mcp_test_echo") || !offered(r, "read_file") {
					t.Errorf("round 1 offers %v; want the search tool and read_file, not the hidden echo", r.Tools)
				}
				if !strings.Contains(r.Messages[0].Content, "tool_search_tool_bm25") {
					t.Errorf("the system prompt does not name the search tool: %q", r.Messages[0].Content)
				}
				return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
					fakeopenai.Call("c1", "tool_search_tool_bm25", map[string]any{"query": "return text unchanged"})}}
			},
			func(r fakeopenai.Request) fakeopenai.Reply {
				if res, _ := r.ToolResult("c1"); !strings.Contains(res, "mcp_test_echo") {
					t.Errorf("the search result does not name mcp_test_echo: %q", res)
				}
				if !offered(r, "mcp_test_echo") {
					t.Errorf("round 2 does not offer the unlocked mcp_test_echo: %v", r.Tools)
				}
				return fakeopenai.Reply{Text: "Let me echo it.", ToolCalls: []fakeopenai.ToolCall{
					fakeopenai.Call("c2", "mcp_test_echo", map[string]any{"text": lines(300)})}}
			},
			func(r fakeopenai.Request) fakeopenai.Reply {
				res, _ := r.ToolResult("c2")
				m := fileRef.FindStringSubmatch(res)
				if !strings.Contains(res, "[MCP RESULT TRUNCATED") || m == nil {
					t.Errorf("the large result is not bounded with a saved file: %q", res)
					return fakeopenai.Reply{Text: "no file"}
				}
				return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
					fakeopenai.Call("c3", "read_file", map[string]any{"path": m[1], "offset": 150, "limit": 2})}}
			},
			func(r fakeopenai.Request) fakeopenai.Reply {
				res, _ := r.ToolResult("c3")
				if !strings.Contains(res, "line number ··· 150") || strings.Contains(res, "··· 152") {
					t.Errorf("read_file did not page to lines 150-151: %q", res)
				}
				return fakeopenai.Reply{Text: "Line 150 reads: line number ··· 150.",
					Usage: &fakeopenai.Usage{PromptTokens: 900, CompletionTokens: 12, TotalTokens: 912}}
			})
		ev := &events{}
		a := chat.New(h, client(srv, stream), chat.Options{UnlockTurns: 2}, ev)
		answer, err := ask(t, a, "What does line 150 of the echoed text say?")
		if err != nil {
			t.Fatal(err)
		}
		if answer != "Line 150 reads: line number ··· 150." {
			t.Errorf("answer = %q", answer)
		}
		if n := len(srv.Requests()); n != 4 {
			t.Errorf("%d model rounds, want 4", n)
		}
		if u := ev.of(chat.EventUnlock); len(u) != 1 || !contains(u[0].Tools, "mcp_test_echo") || u[0].Turns != 2 {
			t.Errorf("unlock events = %+v, want one naming mcp_test_echo for 2 rounds", u)
		}
		results := ev.of(chat.EventToolResult)
		if len(results) != 3 || results[1].Artifact == "" || results[1].Name != "mcp_test_echo" {
			t.Errorf("tool results = %+v, want 3, the echo's naming its artifact", results)
		}
		if u := ev.of(chat.EventUsage); len(u) != 1 || u[0].Usage.TotalTokens != 912 {
			t.Errorf("usage events = %+v", u)
		}
		if txt := ev.of(chat.EventText); len(txt) != 2 || txt[0].Text != "Let me echo it." {
			t.Errorf("text events = %+v", txt)
		}
		if stream && len(ev.of(chat.EventDelta)) < 2 {
			t.Errorf("a streamed answer gave %d deltas", len(ev.of(chat.EventDelta)))
		}
	})
}

// TestUnlockLastsTTLModelRounds: a turn is one model round — tools a
// search unlocks are offered in the ttl rounds after it, then hidden.
func TestUnlockLastsTTLModelRounds(t *testing.T) {
	h := startHost(t, map[string]any{"discovery": map[string]any{"enabled": true, "ttl": 2}})
	search := func(id, q string) fakeopenai.Reply {
		return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call(id, "tool_search_tool_bm25", map[string]any{"query": q})}}
	}
	var seen []bool
	note := func(r fakeopenai.Request) { seen = append(seen, offered(r, "mcp_test_echo")) }
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
		func(r fakeopenai.Request) fakeopenai.Reply { note(r); return search("s1", "return text unchanged") },
		func(r fakeopenai.Request) fakeopenai.Reply { note(r); return search("s2", "process pid") },
		func(r fakeopenai.Request) fakeopenai.Reply { note(r); return search("s3", "process pid") },
		func(r fakeopenai.Request) fakeopenai.Reply { note(r); return fakeopenai.Reply{Text: "done"} })
	a := chat.New(h, client(srv, true), chat.Options{}, nil)
	if _, err := ask(t, a, "go"); err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, true, false}
	if !equal(seen, want) {
		t.Errorf("echo offered per round = %v, want %v (ttl 2: the two rounds after the search)", seen, want)
	}
}

// TestToolFailures: a tool's own error and a call of an unknown tool both
// reach the model as error results it can act on, and the chat goes on.
func TestToolFailures(t *testing.T) {
	both(t, func(t *testing.T, stream bool) {
		h := startHost(t, nil)
		srv := fakeopenai.Start(t, fakeopenai.Options{Stream: stream},
			func(r fakeopenai.Request) fakeopenai.Reply {
				return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
					fakeopenai.Call("bad", "mcp_test_echo", map[string]any{}),
					fakeopenai.Call("nope", "mcp_test_ech", map[string]any{"text": "x"})}}
			},
			func(r fakeopenai.Request) fakeopenai.Reply {
				if res, _ := r.ToolResult("bad"); !strings.HasPrefix(res, "error: ") || !strings.Contains(res, "text") {
					t.Errorf("the tool's error reached the model as %q", res)
				}
				if res, _ := r.ToolResult("nope"); !strings.Contains(res, `unknown tool "mcp_test_ech"`) || !strings.Contains(res, "mcp_test_echo") {
					t.Errorf("the unknown tool reached the model as %q, want the closest name", res)
				}
				return fakeopenai.Reply{Text: "Both failed."}
			})
		ev := &events{}
		a := chat.New(h, client(srv, stream), chat.Options{}, ev)
		if answer, err := ask(t, a, "try"); err != nil || answer != "Both failed." {
			t.Fatalf("answer %q, err %v", answer, err)
		}
		res := ev.of(chat.EventToolResult)
		if len(res) != 2 || !res[0].IsError || !res[1].IsError {
			t.Errorf("tool results = %+v, want two errors", res)
		}
	})
}

// TestLoopBoundedByMaxTurns: a model that calls tools forever is stopped
// after --max-turns rounds.
func TestLoopBoundedByMaxTurns(t *testing.T) {
	h := startHost(t, nil)
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true, RepeatLast: true},
		func(r fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call("", "mcp_test_noop", map[string]any{})}}
		})
	ev := &events{}
	a := chat.New(h, client(srv, true), chat.Options{MaxTurns: 3}, ev)
	_, err := ask(t, a, "loop")
	var limit *chat.TurnLimitError
	if !errors.As(err, &limit) || limit.Turns != 3 || !strings.Contains(err.Error(), "--max-turns") {
		t.Fatalf("err = %v, want a turn limit of 3 naming --max-turns", err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	if e := ev.of(chat.EventError); len(e) != 1 {
		t.Errorf("error events = %+v", e)
	}
	// The ids the endpoint left out were made up, each unique.
	ids := map[string]bool{}
	for _, r := range ev.of(chat.EventToolCall) {
		if r.ID == "" || ids[r.ID] {
			t.Errorf("tool call id %q is empty or repeated", r.ID)
		}
		ids[r.ID] = true
	}
}

// TestMalformedToolCalls: malformed arguments are reported to the model
// once; the second time the user gets the error.
func TestMalformedToolCalls(t *testing.T) {
	h := startHost(t, nil)
	bad := fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "m", Name: "mcp_test_echo", Arguments: `{"text": "unterminated`}}}
	t.Run("told once, then fixed", func(t *testing.T) {
		srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
			func(fakeopenai.Request) fakeopenai.Reply { return bad },
			func(r fakeopenai.Request) fakeopenai.Reply {
				if res, _ := r.ToolResult("m"); !strings.Contains(res, "malformed") || !strings.Contains(res, "not valid JSON") {
					t.Errorf("the model was told %q", res)
				}
				return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call("ok", "mcp_test_echo", map[string]any{"text": "fine"})}}
			},
			func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Text: "fine"} })
		if answer, err := ask(t, chat.New(h, client(srv, true), chat.Options{}, nil), "x"); err != nil || answer != "fine" {
			t.Fatalf("answer %q, err %v", answer, err)
		}
	})
	t.Run("twice: the user is told", func(t *testing.T) {
		srv := fakeopenai.Start(t, fakeopenai.Options{},
			func(fakeopenai.Request) fakeopenai.Reply { return bad },
			func(fakeopenai.Request) fakeopenai.Reply { return bad })
		_, err := ask(t, chat.New(h, client(srv, false), chat.Options{}, nil), "x")
		var m *chat.MalformedError
		if !errors.As(err, &m) || !strings.Contains(err.Error(), "mcp_test_echo") {
			t.Fatalf("err = %v, want a MalformedError naming the tool", err)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d model requests, want 2", n)
		}
	})
}

// TestCancelDuringLongCall: cancelling a message while a tool call runs
// (what Ctrl-C does) ends the call, and the server — a real process
// behind the real stdio plugin — gets notifications/cancelled.
func TestCancelDuringLongCall(t *testing.T) {
	h := startHost(t, nil)
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call("long", "mcp_test_sleep", map[string]any{"seconds": 600})}}
		},
		func(r fakeopenai.Request) fakeopenai.Reply {
			if res, _ := r.ToolResult("long"); !strings.Contains(res, "cancelled") {
				t.Errorf("the cancelled call reached the model as %q", res)
			}
			return fakeopenai.Reply{Text: "after"}
		})
	a := chat.New(h, client(srv, true), chat.Options{}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := a.Ask(ctx, "sleep"); done <- err }()
	waitStderr(t, h, "sleeping ")
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want cancelled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Ask did not return after the cancel")
	}
	waitStderr(t, h, "cancelled ")
	// The conversation goes on: the cancelled call has its result.
	if answer, err := ask(t, a, "again"); err != nil || answer != "after" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}

// TestContextBudget: past the budget the oldest tool results are
// summarised (and said so), the last round's are kept whole.
func TestContextBudget(t *testing.T) {
	h := startHost(t, nil)
	echo := func(id string) fakeopenai.Reply {
		return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call(id, "mcp_test_echo", map[string]any{"text": strings.Repeat("word ", 1000)})}}
	}
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
		func(fakeopenai.Request) fakeopenai.Reply { return echo("e1") },
		func(fakeopenai.Request) fakeopenai.Reply { return echo("e2") },
		func(r fakeopenai.Request) fakeopenai.Reply {
			first, _ := r.ToolResult("e1")
			last, _ := r.ToolResult("e2")
			if !strings.HasPrefix(first, "[result summarised to fit the context budget") {
				t.Errorf("the oldest result was not summarised: %.120q", first)
			}
			if len(last) < 5000 {
				t.Errorf("the last round's result was cut to %d chars", len(last))
			}
			return fakeopenai.Reply{Text: "ok"}
		})
	ev := &events{}
	a := chat.New(h, client(srv, true), chat.Options{ContextTokens: 2000}, ev)
	if _, err := ask(t, a, "fill"); err != nil {
		t.Fatal(err)
	}
	c := ev.of(chat.EventContext)
	if len(c) != 1 || c[0].Action != "summarised" || c[0].Messages != 1 || c[0].After >= c[0].Before {
		t.Errorf("context events = %+v, want one summarising one result", c)
	}
}

// waitStderr waits until the test server's stderr tail holds s.
func waitStderr(t *testing.T, h *host.Host, s string) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		d, _ := h.Diagnostics(ctx, "test")
		cancel()
		if strings.Contains(d.Stderr, s) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the server's stderr never said %q: %q", s, d.Stderr)
		}
	}
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

func equal(a, b []bool) bool { return slices.Equal(a, b) }

// TestCancelDuringModelRequest: cancelling while the model thinks ends
// the request at once; the chat goes on afterwards.
func TestCancelDuringModelRequest(t *testing.T) {
	h := startHost(t, nil)
	started := make(chan struct{})
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
		func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Block: true, Started: started} },
		func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Text: "here"} })
	ev := &events{}
	a := chat.New(h, client(srv, true), chat.Options{}, ev)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := a.Ask(ctx, "think"); done <- err }()
	<-started
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want cancelled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Ask did not return after the cancel")
	}
	if c := ev.of(chat.EventCancelled); len(c) != 1 {
		t.Errorf("cancelled events = %+v", c)
	}
	if answer, err := ask(t, a, "again"); err != nil || answer != "here" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}

// TestCallTimeout: a call past --call-timeout ends, and the model is told
// (that the server hears of it is TestCancelDuringLongCall's part: the
// same context cancellation).
func TestCallTimeout(t *testing.T) {
	h := startHost(t, nil)
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{fakeopenai.Call("slow", "mcp_test_sleep", map[string]any{"seconds": 600})}}
		},
		func(r fakeopenai.Request) fakeopenai.Reply {
			if res, _ := r.ToolResult("slow"); !strings.Contains(res, "no result within 300ms (--call-timeout)") {
				t.Errorf("the timed-out call reached the model as %q", res)
			}
			return fakeopenai.Reply{Text: "too slow"}
		})
	a := chat.New(h, client(srv, true), chat.Options{CallTimeout: 300 * time.Millisecond}, nil)
	if answer, err := ask(t, a, "sleep"); err != nil || answer != "too slow" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}

// TestToolCallsOfARoundRunAtOnce: hold waits until release is called, so
// a round calling both finishes only if its calls run concurrently.
func TestToolCallsOfARoundRunAtOnce(t *testing.T) {
	h := startHost(t, nil, "-faithful")
	srv := fakeopenai.Start(t, fakeopenai.Options{Stream: true},
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
				fakeopenai.Call("h", "mcp_test_hold", map[string]any{}),
				fakeopenai.Call("r", "mcp_test_release", map[string]any{})}}
		},
		func(r fakeopenai.Request) fakeopenai.Reply {
			held, _ := r.ToolResult("h")
			released, _ := r.ToolResult("r")
			if held != "released" || released != "released 1" {
				t.Errorf("hold answered %q, release %q", held, released)
			}
			if r.Messages[len(r.Messages)-2].ToolCallID != "h" {
				t.Errorf("the results are not in the calls' order: %+v", r.Messages)
			}
			return fakeopenai.Reply{Text: "both done"}
		})
	a := chat.New(h, client(srv, true), chat.Options{CallTimeout: time.Minute}, nil)
	if answer, err := ask(t, a, "hold and release"); err != nil || answer != "both done" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}
