package shaping

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/host/artifacts"
)

func TestArtifact(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		rec       record
		fail      bool
		wantSaved string // "" = nothing saved
		wantErrs  int
	}{
		{name: "within budget: not saved", text: repeat("a", 10)},
		{name: "over budget: saved whole", text: repeat("é", 11), wantSaved: repeat("é", 11)},
		{name: "bytes over budget, characters within: not saved", text: repeat("é", 10)},
		{name: "sanitized: the recorded payload is saved", text: "[base64 data removed: 9 chars]", rec: record{sanitized: true, payload: "QmFzZTY0x", havePayload: true}, wantSaved: "QmFzZTY0x"},
		{name: "unwrapped: the unwrapped text is saved", text: "a\nb", rec: record{unwrapped: true, payload: "a\nb", havePayload: true}, wantSaved: "a\nb"},
		{name: "write fails: recorded for spillover", text: repeat("a", 11), fail: true, wantErrs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saver := newMemSaver()
			if tt.fail {
				saver = newMemSaver(KindMCP)
			}
			rec := tt.rec
			res := textResult(tt.text)
			got, err := Artifact(10, saver)(returning(res, nil))(context.Background(), callWith(&rec))
			if err != nil {
				t.Fatal(err)
			}
			if jsonOf(t, got.Result) != jsonOf(t, res) || &got.Content[0] != &res.Content[0] {
				t.Errorf("Artifact changed the result; it must only save")
			}
			if tt.wantSaved == "" {
				if len(saver.saved) != 0 || rec.path != "" {
					t.Errorf("saved %d payloads (path %q), want none", len(saver.saved), rec.path)
				}
			} else {
				path, payload := saver.only(t)
				if diff := cmp.Diff(tt.wantSaved, payload); diff != "" {
					t.Errorf("payload (-want +got):\n%s", diff)
				}
				if rec.path != path || rec.kind != KindMCP {
					t.Errorf("record path %q kind %q, want %q mcp", rec.path, rec.kind, path)
				}
			}
			if len(rec.saveErrs) != tt.wantErrs {
				t.Errorf("saveErrs = %v, want %d", rec.saveErrs, tt.wantErrs)
			}
		})
	}
}

func TestArtifactNamesServerAndTool(t *testing.T) {
	saver := newMemSaver()
	run(t, textResult(repeat("a", 11)), Artifact(10, saver))
	if diff := cmp.Diff([]string{KindMCP}, saver.kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if path, _ := saver.only(t); path != "/ws/.artifacts/mcp/srv__big-0.txt" {
		t.Errorf("path = %q", path)
	}
}

// A named client's payload goes to its own store; a Saver that cannot keep
// clients apart saves nothing for it rather than sharing the payload.
func TestArtifactPerClient(t *testing.T) {
	call := testCall
	call.Client = "ci"
	res := textResult(repeat("a", 2000))
	chain := func(saver Saver) Handler {
		return Chain(returning(res, nil), Standard(Options{MaxInlineChars: 100, Saver: saver})...)
	}

	store, err := artifacts.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := chain(store)(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	own, _ := store.ForClient("ci")
	if text := onlyText(t, got.Result); !strings.Contains(text, "[file:"+own.Dir(KindMCP)+string(filepath.Separator)) {
		t.Errorf("client's result not saved in its directory %s: %.400q", own.Dir(KindMCP), text)
	}

	mem := newMemSaver()
	got, err = chain(mem)(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if len(mem.saved) != 0 {
		t.Errorf("a Saver without client stores saved a client's payload: %v", mem.kinds)
	}
	if text := onlyText(t, got.Result); strings.Contains(text, "[file:") || !strings.Contains(text, `client "ci"`) {
		t.Errorf("bounded text: %.600q, want no [file:...] and the reason naming the client", text)
	}
}
