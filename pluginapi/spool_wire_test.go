package pluginapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The spool settings cross the Open frame whole, the directory made
// absolute and the name prefix kept a plain name.
func TestSpoolCrossesTheWire(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	sent := &ResultSpool{Dir: "ws/.artifacts/mcp", MaxBytes: 8 << 20, NamePrefix: "gh__result",
		MaxSetting: "tools.mcp.max_result_mb", MessageSetting: "tools.mcp.max_message_mb"}
	want := *sent
	want.Dir = filepath.Join(wd, "ws/.artifacts/mcp")
	if diff := cmp.Diff(&want, spoolFromProto(spoolToProto(sent))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	sent.NamePrefix = "../../etc/evil"
	if got := spoolFromProto(spoolToProto(sent)).NamePrefix; got != "evil" {
		t.Errorf("a prefix with a path crossed as %q; want the base name", got)
	}
	if spoolFromProto(spoolToProto(nil)) != nil {
		t.Error("no spool crossed as one")
	}
}

// A result over the spool's own limit names the setting that raises it,
// on both sides of the wire, so the host does not point at max_message_mb.
func TestLimitSettingSurvivesTheWire(t *testing.T) {
	sent := &Error{Op: "recv", Kind: KindMessageTooLarge, Err: &MessageTooLargeError{Limit: 8 << 20, Seen: 9 << 20, What: "result", Setting: "tools.mcp.max_result_mb"}}
	got := fromStatus("recv", toStatus("relay", sent))
	if LimitSetting(sent) != "tools.mcp.max_result_mb" || LimitSetting(got) != "tools.mcp.max_result_mb" || KindOf(got) != KindMessageTooLarge {
		t.Errorf("sent %q, got %v (setting %q)", LimitSetting(sent), got, LimitSetting(got))
	}
	if !strings.Contains(got.Error(), "raise tools.mcp.max_result_mb to accept larger results") {
		t.Errorf("error text %q does not say which setting to raise", got)
	}
	plain := fromStatus("recv", toStatus("relay", &Error{Op: "recv", Kind: KindMessageTooLarge, Err: &MessageTooLargeError{Limit: 1 << 20, Seen: 2 << 20}}))
	if LimitSetting(plain) != "" {
		t.Errorf("a message over the message limit names %q", LimitSetting(plain))
	}
}
