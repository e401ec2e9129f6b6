//go:build linux

package stdiotransport

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/plughost/plughost/pluginapi"
)

// openHandoff opens `sh -c script` asking for direct pipes.
func openHandoff(t *testing.T, script string) *Conn {
	t.Helper()
	raw, _ := json.Marshal(Config{Command: "sh", Args: []string{"-c", script}})
	conn, err := newTestTransport(io.Discard).Open(context.Background(),
		pluginapi.OpenRequest{ServerName: t.Name(), Config: raw, WantDirectPipes: true})
	if err != nil {
		t.Fatal(err)
	}
	c := conn.(*Conn)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestHandOffGivesThePipesAndKeepsWatching(t *testing.T) {
	c := openHandoff(t, `read line; echo "$line"; echo "bye" >&2; exit 4`)
	stdin, stdout, err := c.HandOff()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"method":"ping"`) {
		t.Fatalf("read from the handed-off stdout: %q, %v", line, err)
	}
	if err := c.Send(context.Background(), json.RawMessage(`{}`)); err == nil {
		t.Error("Send after HandOff succeeded; the host owns stdin now")
	}
	// Recv now reports only the server's exit, with its status and stderr.
	_, err = recv(t, c)
	if k := pluginapi.KindOf(err); k != pluginapi.KindServerExited {
		t.Fatalf("Recv after exit: kind %q (%v), want server_exited", k, err)
	}
	for _, part := range []string{"exit status 4", "bye"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("exit error %q lacks %q", err, part)
		}
	}
}

func TestHandOffRefusedOnceReading(t *testing.T) {
	c := openHandoff(t, `echo '{"jsonrpc":"2.0","method":"hello"}'; cat`)
	if _, err := recv(t, c); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.HandOff(); err == nil {
		t.Fatal("HandOff succeeded after Recv had started reading stdout")
	}
}

func TestHandOffWithoutRequestIsRefused(t *testing.T) {
	c := openShell(t, `cat`)
	if _, _, err := c.HandOff(); err == nil {
		t.Fatal("HandOff succeeded on a connection opened without WantDirectPipes")
	}
}
