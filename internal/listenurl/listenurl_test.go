package listenurl

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestStart(t *testing.T) {
	url, stop, err := Start(exec.Command("sh", "-c", "echo 'listening http://127.0.0.1:1/mcp'; exec sleep 30"), 10*time.Second)
	if err != nil || url != "http://127.0.0.1:1/mcp" {
		t.Fatalf("url %q, err %v", url, err)
	}
	stop()

	if _, _, err := Start(exec.Command("sh", "-c", "echo hello"), 10*time.Second); err == nil || !strings.Contains(err.Error(), `said "hello"`) {
		t.Fatalf("a wrong first line: %v", err)
	}
	if _, _, err := Start(exec.Command("sleep", "30"), 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "did not say where it listens") {
		t.Fatalf("a silent server: %v", err)
	}
	if _, _, err := Start(exec.Command("/nonexistent/server"), time.Second); err == nil || !strings.Contains(err.Error(), "/nonexistent/server") {
		t.Fatalf("a missing binary: %v", err)
	}
}
